/** The git hosts a repository target may name (`github:owner/repo`); GIT_HOSTS maps each to a base URL. */
export const GIT_HOST_KINDS = ['github', 'gitlab', 'bitbucket'] as const;
export type GitHostKind = (typeof GIT_HOST_KINDS)[number];
