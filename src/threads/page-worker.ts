import type { MessagePort } from 'node:worker_threads';
import { parsePage } from '../inventory/sources/site-page.js';
import { clock } from './budget-pool.js';

export interface PageTask {
  readonly body: Uint8Array;
  readonly contentType: string;
  readonly url: string;
}

/** A parsed page as data (URLs as text: they do not cross threads). */
export interface PageData {
  readonly title: string | null;
  readonly markdown: string;
  readonly links: readonly string[];
  readonly nofollow: boolean;
  readonly noindex: boolean;
}

/** A page thread's task: HTML to Markdown (turndown) and links, within the run's budget. */
export default function convertPage(task: PageTask & { port: MessagePort }): PageData {
  clock(task.port, true);
  try {
    const page = parsePage(Buffer.from(task.body.buffer, task.body.byteOffset, task.body.byteLength), task.contentType, new URL(task.url));
    return { ...page, links: page.links.map((link) => link.href) };
  } finally {
    task.port.close();
  }
}
