import type { Format } from 'ajv';

export declare function allUnique(items: readonly unknown[]): boolean;
export declare const formats: Readonly<Record<string, Format>>;
