import { existsSync } from 'node:fs'
import { open, rename, rm } from 'node:fs/promises'
import { exportContactsCsv } from '../../core/contacts/export.ts'
import { importCsvFile, type ImportProgress, type ImportSummary } from '../../core/contacts/import-file.ts'
import type { Db } from '../../db/schema.ts'
import { writeTransaction } from '../../db/transaction.ts'
import { AppError } from '../../lib/errors.ts'
import { CliError } from '../cli-error.ts'
import { idArg, JSON_FLAG, print, stringFlag, type Command, type Context } from '../command.ts'

const projectFlag = { project: { description: 'Project ID', value: 'id', required: true } }
const projectOf = (context: Context) => idArg(stringFlag(context, 'project'), '--project')
/** Failed rows printed after the summary; --json has the first 100. */
const SHOWN_ERRORS = 10

export const contactsImportCommand: Command = {
  name: 'contacts import',
  summary: 'Import contacts from a CSV file (an email column; subscribed and any others optional)',
  args: 'FILE',
  flags: { ...projectFlag, ...JSON_FLAG },
  async run(context) {
    const projectId = projectOf(context)
    const file = context.args[0]
    if (!file) throw new CliError('Give the CSV file to import')
    if (!existsSync(file)) throw new CliError(`There is no file ${file}`)
    const stop = new AbortController()
    void context.io.stopSignal.then(() => stop.abort())
    const summary = await context.withDb((db) =>
      importCsvFile(db, (work) => writeTransaction(db, work), projectId, file, {
        signal: stop.signal,
        onProgress: (progress) => context.io.progress?.(progressBar(progress)),
      }),
    )
    context.io.progress?.('')
    const { complete, processedRows, createdCount, updatedCount, failedCount, errors } = summary
    print(context, { complete, processedRows, createdCount, updatedCount, failedCount, errors }, () => summaryLines(summary))
    if (!summary.complete) {
      throw new AppError(500, 'STOPPED', 'Stopped before the end of the file: run the same command again to finish (rows already imported are updated, not duplicated)')
    }
  },
}

/** `[########------------]  40%  400,000 rows` */
export function progressBar(progress: ImportProgress, width = 20): string {
  const share = progress.bytesTotal === 0 ? 1 : Math.min(1, progress.position.offset / progress.bytesTotal)
  const done = Math.round(share * width)
  const failed = progress.failedCount > 0 ? `, ${count(progress.failedCount)} failed` : ''
  return `[${'#'.repeat(done)}${'-'.repeat(width - done)}] ${String(Math.floor(share * 100)).padStart(3)}%  ${count(progress.processedRows)} rows${failed}`
}

function summaryLines(summary: ImportSummary): string[] {
  const lines = [
    `${summary.complete ? 'Imported' : 'Stopped after'} ${count(summary.processedRows)} rows: ${count(summary.createdCount)} created, ${count(summary.updatedCount)} updated, ${count(summary.failedCount)} failed`,
    ...summary.errors.slice(0, SHOWN_ERRORS).map((e) => `  line ${e.line}: ${e.message}`),
  ]
  const more = summary.failedCount - Math.min(summary.errors.length, SHOWN_ERRORS)
  if (more > 0) lines.push(`  and ${count(more)} more failed ${more === 1 ? 'row' : 'rows'} (--json lists the first 100)`)
  return lines
}

const count = (n: number) => n.toLocaleString('en-US')

export const contactsExportCommand: Command = {
  name: 'contacts export',
  summary: "Write a project's contacts as CSV, to standard output or --output FILE",
  flags: { ...projectFlag, output: { description: 'Write to this file (replaced when done)', value: 'file' }, ...JSON_FLAG },
  async run(context) {
    const projectId = projectOf(context)
    const output = context.flags.output
    if (output === true || output === '') throw new CliError('--output needs a file name')
    if (output === undefined) {
      if (context.flags.json) throw new CliError('--json needs --output: without it the CSV itself goes to standard output')
      const summary = await context.withDb((db) => exportContactsCsv(db, projectId, async (csv) => context.io.out(csv.replace(/\n$/, ''))))
      context.io.err(`Exported ${count(summary.contacts)} contacts`)
      return
    }
    const summary = await context.withDb((db) => exportToFile(db, projectId, output))
    print(context, { file: output, ...summary }, () => [`Exported ${count(summary.contacts)} contacts to ${output}`])
  },
}

/** Writes beside the file and renames at the end: a failed export leaves no half file behind. */
async function exportToFile(db: Db, projectId: number, path: string) {
  const partial = `${path}.partial`
  const file = await open(partial, 'w')
  try {
    const summary = await exportContactsCsv(db, projectId, async (csv) => void (await file.write(csv)))
    await file.close()
    await rename(partial, path)
    return summary
  } catch (error) {
    await file.close().catch(() => {})
    await rm(partial, { force: true })
    throw error
  }
}
