/**
 * The layering `npm test` holds (docs/architecture.md "Checks that keep the shape"): each module is
 * reached through its `index.ts`, the composition root alone reads manifests, the platform knows no
 * module, and no runtime import cycle exists (type-only imports erase at build time).
 */
module.exports = {
  forbidden: [
    {
      name: 'no-cycle',
      severity: 'error',
      comment: 'A runtime import cycle makes load order decide what a module sees.',
      from: {},
      to: { circular: true, viaOnly: { dependencyTypesNot: ['type-only'] } },
    },
    {
      name: 'platform-knows-no-module',
      severity: 'error',
      comment: 'src/platform is cross-cutting: modules build on it, never the other way round.',
      from: { path: '^src/platform/' },
      to: { path: '^src/(modules|admin|sweeps|wiring)' },
    },
    {
      name: 'module-surface',
      severity: 'error',
      comment: 'Another module is reached through its index.ts only, never its files or tables.',
      from: { path: '^src/modules/([^/]+)/' },
      to: { path: '^src/modules/[^/]+/', pathNot: ['^src/modules/$1/', '^src/modules/[^/]+/index\\.ts$'] },
    },
    {
      name: 'outside-through-surface',
      severity: 'error',
      comment: 'The operator API, providers and sweeps call modules through their index.ts; only the composition root reads manifests.',
      from: { path: '^src/', pathNot: ['^src/modules/', '^src/wiring\\.ts$'] },
      to: { path: '^src/modules/[^/]+/', pathNot: '^src/modules/[^/]+/index\\.ts$' },
    },
    {
      name: 'no-unresolvable',
      severity: 'error',
      from: {},
      comment: 'Runtime built-ins and type-only packages have no file to resolve.',
      to: { couldNotResolve: true, pathNot: ['^cloudflare:', '^mdast$'] },
    },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
    enhancedResolveOptions: {
      exportsFields: ['exports'],
      conditionNames: ['import', 'require', 'node', 'default', 'types'],
      extensions: ['.ts', '.js', '.mjs', '.json'],
    },
    exclude: { path: ['node_modules'] },
  },
};
