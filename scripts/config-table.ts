// Prints the README's configuration table: bun scripts/config-table.ts
import { configurationTable } from '../src/config/docs.ts'

console.log(configurationTable())
