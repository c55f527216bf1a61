import type { Format } from 'ajv';

export declare function allUnique(items: readonly unknown[]): boolean;
export declare const formats: Readonly<Record<string, Format>>;
export declare function isHashContent(text: string): boolean;
export declare function regExp(pattern: string, flags: string): { test(text: string): boolean };
export declare function ucs2length(text: string): number;
