// The layering rules `npm run depcheck` (in `make test`) holds the code to. Type-only imports are
// left out: they vanish when compiled, so they make no cycle at run time and load nothing.
/** @type {import('dependency-cruiser').IConfiguration} */
module.exports = {
  forbidden: [
    {
      name: 'no-runtime-cycle',
      severity: 'error',
      comment: 'An import cycle between runtime imports: one of the modules is loaded half-initialised. Move what both need below them.',
      from: {},
      to: { circular: true, dependencyTypesNot: ['type-only'], viaOnly: { dependencyTypesNot: ['type-only'] } },
    },
    {
      name: 'lib-not-to-app',
      severity: 'error',
      comment: 'lib/ is below the pages and components: it never imports app/ or components/.',
      from: { path: '^lib/' },
      to: { path: '^(app|components)/', dependencyTypesNot: ['type-only'] },
    },
    {
      name: 'computation-not-to-http',
      severity: 'error',
      comment: 'Pure computation (geo, raster, drone) never imports the web layer: errors come from lib/errors.ts.',
      from: { path: '^lib/(geo|raster|drone)/' },
      to: { path: '^lib/http/' },
    },
  ],
  options: {
    includeOnly: '^(app|components|lib|instrumentation)',
    exclude: { path: '^lib/db/generated/' },
    doNotFollow: { path: 'node_modules' },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
    enhancedResolveOptions: { exportsFields: ['exports'], conditionNames: ['import', 'require', 'node', 'default'], extensions: ['.ts', '.tsx', '.mjs', '.js'] },
  },
};
