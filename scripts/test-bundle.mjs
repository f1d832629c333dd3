// Bundles test files with esbuild so that node:test runs them with plain Node instead of through
// tsx: one bundle per test file, the code they share in chunks. Every `import.meta.url` and
// `import.meta.dirname` of the repository's own code (tests, helpers, src/, bench/, scripts/)
// becomes its source file's own, so paths computed relative to a file, and "am I the main module"
// checks, are the same as in the source tree.
import { readFileSync } from 'node:fs'
import { dirname, join, relative, resolve } from 'node:path'
import { pathToFileURL } from 'node:url'
import { build } from 'esbuild'

const importMetaOfSource = {
  name: 'import-meta-of-source',
  setup(b) {
    b.onLoad({ filter: /\.ts$/ }, (args) => {
      if (args.path.includes('/node_modules/')) return undefined
      const source = readFileSync(args.path, 'utf8')
      if (!source.includes('import.meta')) return undefined
      const contents = source
        .replaceAll('import.meta.url', JSON.stringify(pathToFileURL(args.path).href))
        .replaceAll('import.meta.dirname', JSON.stringify(dirname(args.path)))
      return { contents, loader: 'ts' }
    })
  },
}

/** Bundles `files` (test/….test.ts) into `outDir`; answers the bundle of each, in the same order. */
export async function bundleTests(files, outDir) {
  const entryPoints = files.map((file) => ({ in: file, out: relative('test', file).replace(/\.ts$/, '') }))
  await bundle(entryPoints, outDir)
  return entryPoints.map((entry) => join(resolve(outDir), `${entry.out}.mjs`))
}

/**
 * Bundles each entry point ({ in, out }) into `<outDir>/<out>.mjs`, the code they share in chunks;
 * answers esbuild's metafile (what each output holds and imports).
 */
export async function bundle(entryPoints, outDir) {
  const { metafile } = await build({
    metafile: true,
    entryPoints,
    bundle: true,
    splitting: true,
    chunkNames: 'chunks/[name]-[hash]',
    outExtension: { '.js': '.mjs' },
    platform: 'node',
    format: 'esm',
    packages: 'external',
    target: 'node20',
    sourcemap: 'linked',
    logLevel: 'warning',
    outdir: resolve(outDir),
    plugins: [importMetaOfSource],
  })
  return metafile
}
