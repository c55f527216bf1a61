/** Spec lines (4-space `name (version)`) of the source sections of a Gemfile.lock, counted by line. */
export function specLines(lock: string): number {
  let inSource = false;
  let count = 0;
  for (const line of lock.split('\n')) {
    if (/^\S/.test(line)) inSource = ['GIT', 'GEM', 'PATH', 'PLUGIN SOURCE'].includes(line.trim());
    else if (inSource && /^ {4}\S/.test(line)) count++;
  }
  return count;
}

