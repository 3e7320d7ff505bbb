/**
 * The layering `npm test` holds (docs/architecture.md "Checks that keep the shape"): each module is
 * reached through its `index.ts`, the composition root alone reads manifests, the platform and the
 * providers know no module, `src/env.ts` sits below everything, and no import cycle exists.
 */
module.exports = {
  forbidden: [
    {
      name: 'no-cycle',
      severity: 'error',
      comment: 'A cycle makes load order decide what a module sees; a type-only one becomes a runtime one once a value is imported along it.',
      from: {},
      to: { circular: true },
    },
    {
      name: 'env-is-the-bottom',
      severity: 'error',
      comment: 'src/env.ts declares the bindings every layer reads: it imports only the Durable Object classes it binds.',
      from: { path: '^src/env\\.ts$' },
      to: { path: '^src/', pathNot: '^src/durable-objects/' },
    },
    {
      name: 'platform-knows-no-module',
      severity: 'error',
      comment: 'src/platform is cross-cutting: modules build on it, never the other way round.',
      from: { path: '^src/platform/' },
      to: { path: '^src/(modules|admin|sweeps|wiring)' },
    },
    {
      name: 'providers-know-no-module',
      severity: 'error',
      comment: 'Modules build on providers: what a provider needs from a module is handed in by the composition root (src/wiring.ts).',
      from: { path: '^src/providers/' },
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
      comment: 'The operator API and the sweeps call modules through their index.ts; only the composition root reads manifests.',
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
