// Stylesheets imported by the console's modules are bundled by Bun into one CSS file.
declare module '*.css'
