/** The text/event-stream format (WHATWG HTML, server-sent events), fed decoded text chunks. */

export interface StreamEvent {
  readonly type: string;
  readonly data: string;
  readonly id: string;
}

export interface EventStreamHandlers {
  event(event: StreamEvent): void;
  /** The last event id after each dispatch (what a reconnect sends as Last-Event-ID). */
  id(id: string): void;
  retry(ms: number): void;
  comment(text: string): void;
}

export function eventStreamParser(lastEventId: string, handlers: EventStreamHandlers): (chunk: string) => void {
  let buffer = '';
  let skipLF = false;
  let data = '';
  let type = '';
  let idBuffer = lastEventId;
  const line = (value: string): void => {
    if (value === '') {
      handlers.id(idBuffer);
      if (data !== '') handlers.event({ type: type || 'message', data: data.slice(0, -1), id: idBuffer });
      data = '';
      type = '';
      return;
    }
    if (value.startsWith(':')) {
      handlers.comment(value.slice(1));
      return;
    }
    const colon = value.indexOf(':');
    const name = colon === -1 ? value : value.slice(0, colon);
    let field = colon === -1 ? '' : value.slice(colon + 1);
    if (field.startsWith(' ')) field = field.slice(1);
    if (name === 'event') type = field;
    else if (name === 'data') data += `${field}\n`;
    else if (name === 'id' && !field.includes('\u0000')) idBuffer = field;
    else if (name === 'retry' && /^[0-9]+$/.test(field)) handlers.retry(Number(field));
  };
  return (input: string): void => {
    let chunk = input;
    if (chunk === '') return;
    if (skipLF && chunk.startsWith('\n')) chunk = chunk.slice(1);
    skipLF = false;
    buffer += chunk;
    let start = 0;
    for (let i = 0; i < buffer.length; i++) {
      const c = buffer[i];
      if (c !== '\n' && c !== '\r') continue;
      line(buffer.slice(start, i));
      if (c === '\r') {
        if (i + 1 === buffer.length) skipLF = true;
        else if (buffer[i + 1] === '\n') i += 1;
      }
      start = i + 1;
    }
    // What follows the last line end is an unfinished line; at the end of the stream it is dropped.
    buffer = buffer.slice(start);
  };
}
