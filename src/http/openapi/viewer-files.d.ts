// The API viewer's files, imported as files: from source their path in node_modules, in the compiled
// binary the path of the copy that `bun build --compile` embeds (read with Bun.file either way).
declare module 'swagger-ui-dist/swagger-ui-bundle.js' {
  const path: string
  export default path
}
declare module 'swagger-ui-dist/swagger-ui.css' {
  const path: string
  export default path
}
