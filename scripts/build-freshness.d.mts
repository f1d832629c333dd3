// Types of scripts/build-freshness.mjs, for the test helpers that import it.
export function staleBuild(root: string): string | undefined
export function buildWhenStale(root: string): void
