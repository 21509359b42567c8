// The documentation's pages, imported as text (src/http/docs/sources.ts): Bun reads them from the
// checkout, and `bun build --compile` puts their text into the binary.
declare module '*.md' {
  const text: string
  export default text
}
