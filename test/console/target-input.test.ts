import { describe, expect, it } from 'vitest';
import { targetFromInput } from '../../console/src/explorer/target-input.js';

describe("the console's reading of a typed target", () => {
  it.each([
    ['npm:react@18.3.1', 'npm:react@18.3.1'],
    ['  github:facebook/react@v18.3.1 ', 'github:facebook/react@v18.3.1'],
    ['site:docs.example.com/guide', 'site:docs.example.com/guide'],
    ['https://github.com/facebook/react', 'github:facebook/react'],
    ['https://github.com/facebook/react.git', 'github:facebook/react'],
    ['https://github.com/facebook/react/tree/v18.3.1/packages', 'github:facebook/react@v18.3.1'],
    ['https://gitlab.com/group/project/-/tree/main', 'gitlab:group/project@main'],
    ['https://bitbucket.org/team/repo/src/abc123/', 'bitbucket:team/repo@abc123'],
    ['https://docs.example.com/guide/', 'site:docs.example.com/guide'],
    ['https://docs.example.com', 'site:docs.example.com'],
    ['http://localhost:8080/docs', 'site:localhost:8080/docs'],
  ])('%s → %s', (input, target) => {
    expect(targetFromInput(input)).toBe(target);
  });
});
