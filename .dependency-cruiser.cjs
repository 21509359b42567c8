// The import rules of docs/architecture.md, checked by `npx depcruise src` (part of `npm test`).
//
// TypeScript is read through Babel (.dependency-cruiser.babel.json), which drops the imports
// that only carry types: a type says nothing about the order modules load in or which code runs,
// so a type import neither makes a cycle nor climbs a floor here. dependency-cruiser only scans
// .ts files when it finds a TypeScript compiler it knows: the project's TypeScript 7 is not one,
// so @swc/core is installed for that, and Babel does the reading.
/** @type {import('dependency-cruiser').IConfiguration} */
module.exports = {
  forbidden: [
    // The floors: lib <- db, config <- core <- cluster, delivery, dns, smtp, workers <- http <- app (src/app.ts, src/app/) <- cli.
    {
      name: 'lib-imports-nothing-of-the-app',
      comment: 'src/lib knows nothing of Mailstead: it imports only itself and packages.',
      severity: 'error',
      from: { path: '^src/lib/' },
      to: { path: '^src/', pathNot: '^src/lib/' },
    },
    {
      name: 'db-and-config-import-only-lib',
      comment: 'src/db and src/config sit on lib alone.',
      severity: 'error',
      from: { path: '^src/(db|config)/' },
      to: { path: '^src/', pathNot: '^src/(lib|db|config)/' },
    },
    {
      name: 'core-imports-no-transport',
      comment:
        'src/core holds the rules and the queries; what runs them (the delivery loop, DNS, SMTP, ' +
        'HTTP, the CLI, the workers) and the composition root sit above it.',
      severity: 'error',
      from: { path: '^src/core/' },
      to: { path: '^src/((http|smtp|cli|delivery|dns|workers|console|app)/|[^/]+\\.ts$)' },
    },
    {
      name: 'runners-import-no-transport-above',
      comment: 'cluster, delivery, dns, smtp and the workers run work over core; HTTP, the CLI and app.ts sit above them.',
      severity: 'error',
      from: { path: '^src/(cluster|delivery|dns|smtp|workers)/' },
      to: { path: '^src/((http|cli|console|app)/|(app|main)\\.ts$)' },
    },
    {
      name: 'http-imports-no-app-or-cli',
      comment: 'HTTP is a transport: app.ts wires it, the CLI starts app.ts.',
      severity: 'error',
      from: { path: '^src/http/' },
      to: { path: '^src/((cli|console|app)/|(app|main)\\.ts$)' },
    },
    {
      name: 'app-imports-no-cli',
      comment: 'The CLI starts the server through createApp (src/app.ts, wired by src/app/), never the other way round.',
      severity: 'error',
      from: { path: '^src/(app\\.ts$|app/)' },
      to: { path: '^src/(cli/|main\\.ts$)' },
    },
    // The entities of src/core.
    {
      name: 'no-cycle-between-core-entities',
      comment:
        'No two entity folders of src/core import each other, directly or round a longer loop. ' +
        'A reaction of one entity to another\'s change belongs in src/core/reactions.ts (the folder ' +
        'src/core here), which may close such a loop.',
      scope: 'folder',
      severity: 'error',
      from: { path: '^src/core/[^/]+$' },
      to: { circular: true, viaOnly: { pathNot: '^src/core$' } },
    },
    {
      name: 'no-foreign-repository',
      comment:
        'Another entity is reached through its index.ts (its services and types), never through ' +
        'its *.repository.ts: each table has one owner, and its queries stay with it.',
      severity: 'error',
      from: { path: '^src/core/([^/]+)/' },
      to: {
        path: '^src/core/[^/]+/[^/]+\\.repository\\.ts$',
        pathNot: '^src/core/$1/',
      },
    },
    {
      name: 'no-repository-from-above',
      comment: 'Code above core reaches an entity through its index.ts or its services, never its repository.',
      severity: 'error',
      from: { path: '^src/', pathNot: ['^src/core/', '\\.test\\.ts$'] },
      to: { path: '^src/core/[^/]+/[^/]+\\.repository\\.ts$' },
    },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    // The console is a browser bundle with its own tsconfig; it reaches the server only over HTTP.
    exclude: {
      path: ['^src/console/'],
    },
    moduleSystems: ['es6'],
    tsConfig: { fileName: 'tsconfig.json' },
    babelConfig: { fileName: '.dependency-cruiser.babel.json' },
    enhancedResolveOptions: { extensions: ['.ts', '.js'] },
    cache: { folder: 'node_modules/.cache/dependency-cruiser', strategy: 'content' },
  },
}
