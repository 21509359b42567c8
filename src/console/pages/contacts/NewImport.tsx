import { useMutation } from '@tanstack/react-query'
import { useState } from 'react'
import { Button, DropZone, FileTrigger, Text } from 'react-aria-components'
import { ApiError } from '../../api/api-errors.ts'
import { useApi } from '../../api/context.tsx'
import { importsApi, type ContactImport } from '../../api/imports.api.ts'
import { Badge } from '../../components/Badge.tsx'
import { Card } from '../../components/Card.tsx'
import { useSubmitOnce } from '../../components/SubmitButton.tsx'
import { choiceProblems, guessColumns, importedRows, mappingOf, PREVIEW_ROWS, readPreview, type ColumnChoice, type ColumnKind, type CsvPreview } from '../../lib/csv-preview.ts'
import { ImportSteps } from './ImportSteps.tsx'

/** The most the server takes (src/http/request-body.ts, IMPORT_BODY_LIMIT). */
const MAX_BYTES = 512 * 1024 * 1024

export function fileSize(bytes: number): string {
  if (bytes < 1024) return `${bytes} bytes`
  if (bytes < 1024 * 1024) return `${(bytes / 1024).toFixed(1)} KB`
  return `${(bytes / 1024 / 1024).toFixed(1)} MB`
}

/** Why the server refused the upload: its field's message and what to do, in one alert. */
export function UploadRefused({ error }: { error: unknown }) {
  const api = error instanceof ApiError ? error : undefined
  const field = api?.fields[0]
  const message = field ? field.message : api ? api.message : String((error as Error)?.message ?? error)
  const where = field?.field === 'mapping' ? 'The column mapping was refused' : 'The file was refused'
  return (
    <div className="import-refused" role="alert">
      <p className="state-title">{where}</p>
      <p>{message}</p>
      {api?.suggestion && <p>{api.suggestion}</p>}
    </div>
  )
}

/** Step 1: a file picker and a drop zone; the file's size is shown once chosen. */
function ChooseFile({ onFile, problem }: { onFile: (file: File) => void; problem?: string }) {
  const [over, setOver] = useState(false)
  return (
    <Card title="Choose a CSV file" description="The first line names the columns; one of them holds the email addresses. UTF-8, at most 512 MB.">
      <DropZone
        className={over ? 'drop-zone drop-zone-over' : 'drop-zone'}
        aria-label="Drop a CSV file here"
        onDropEnter={() => setOver(true)}
        onDropExit={() => setOver(false)}
        onDrop={async (event) => {
          setOver(false)
          const item = event.items.find((i) => i.kind === 'file')
          if (item && item.kind === 'file') onFile(await item.getFile())
        }}
      >
        <Text slot="label" className="drop-zone-text">
          Drop a CSV file here, or
        </Text>
        <FileTrigger acceptedFileTypes={['.csv', 'text/csv', 'text/plain']} onSelect={(files) => files?.[0] && onFile(files[0])}>
          <Button className="button">Choose a file</Button>
        </FileTrigger>
      </DropZone>
      {problem && (
        <p className="field-error" role="alert">
          {problem}
        </p>
      )}
    </Card>
  )
}

const KINDS: Array<{ kind: ColumnKind; label: string }> = [
  { kind: 'email', label: 'Email' },
  { kind: 'subscribed', label: 'Subscribed' },
  { kind: 'data', label: 'Data field' },
  { kind: 'ignore', label: 'Ignore' },
]

/** One column of the file: its name, a sample, what it becomes, and the data key's name. */
function ColumnRow({ choice, sample, onChange }: { choice: ColumnChoice; sample: string; onChange: (next: ColumnChoice) => void }) {
  const id = `column-${encodeURIComponent(choice.name)}`
  return (
    <tr>
      <td data-label="Column">
        <span className="cell-stack">
          <span className="mapping-name">{choice.name}</span>
          {sample && <span className="mapping-sample muted">{sample}</span>}
        </span>
      </td>
      <td data-label="Import as">
        <select id={id} className="input" aria-label={`Import "${choice.name}" as`} value={choice.kind} onChange={(e) => onChange({ ...choice, kind: e.target.value as ColumnKind })}>
          {KINDS.map((k) => (
            <option key={k.kind} value={k.kind}>
              {k.label}
            </option>
          ))}
        </select>
      </td>
      <td data-label="Data key">
        {choice.kind === 'data' ? (
          <input className="input" aria-label={`Data key for "${choice.name}"`} value={choice.key} onChange={(e) => onChange({ ...choice, key: e.target.value })} />
        ) : (
          <span className="muted">—</span>
        )}
      </td>
    </tr>
  )
}

/** The first rows as they will be imported, with the chosen mapping; a row the server will refuse says why. */
function PreviewTable({ preview, choices }: { preview: CsvPreview; choices: ColumnChoice[] }) {
  const shown = importedRows(preview, choices)
  return (
    <div className="table-wrap">
      <table className="table preview-table">
        <caption className="visually-hidden">First rows as they will be imported</caption>
        <thead>
          <tr>
            {shown.columns.map((c, i) => (
              <th key={i} scope="col">
                {c}
              </th>
            ))}
          </tr>
        </thead>
        <tbody>
          {shown.rows.length === 0 && (
            <tr>
              <td colSpan={shown.columns.length}>The file has a header and no rows.</td>
            </tr>
          )}
          {shown.rows.map((row, r) => (
            <tr key={r}>
              {row.cells.map((cell, c) => (
                <td key={c} data-label={shown.columns[c]}>
                  <span className="cell-stack">
                    {cell === '' ? <span className="muted">—</span> : <span>{cell}</span>}
                    {c === 0 && row.refused && (
                      <span className="preview-refused">
                        <Badge tone="bad">Refused</Badge> {row.refused}
                      </span>
                    )}
                  </span>
                </td>
              ))}
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  )
}

/** Step 2: each column with what it becomes, the preview, and the button that starts the import. */
function MapColumns({ file, preview, onBack, onStarted }: { file: File; preview: CsvPreview; onBack: () => void; onStarted: (job: ContactImport) => void }) {
  const { api } = useApi()
  const [choices, setChoices] = useState(() => guessColumns(preview.header))
  const start = useMutation({ mutationFn: () => importsApi(api).start(file, mappingOf(choices)), onSuccess: onStarted })
  const once = useSubmitOnce()
  const problems = choiceProblems(choices)
  const set = (index: number, next: ColumnChoice) => setChoices((all) => all.map((c, i) => (i === index ? next : c)))
  return (
    <>
      <Card
        title="Map the columns"
        description={
          <>
            <strong>{file.name}</strong> · {fileSize(file.size)} · {preview.header.length} columns
          </>
        }
        actions={
          <Button className="button" onPress={onBack}>
            Choose another file
          </Button>
        }
      >
        {!preview.utf8 && (
          <p className="import-warning" role="status">
            This file does not look like UTF-8 text: the server will refuse it. Save it as UTF-8 (in Excel: "CSV UTF-8") and choose it again.
          </p>
        )}
        <div className="table-wrap">
          <table className="table mapping-table">
            <caption className="visually-hidden">Columns of {file.name}</caption>
            <thead>
              <tr>
                <th scope="col">Column</th>
                <th scope="col">Import as</th>
                <th scope="col">Data key</th>
              </tr>
            </thead>
            <tbody>
              {choices.map((choice, index) => (
                <ColumnRow key={choice.name + index} choice={choice} sample={preview.rows[0]?.[index] ?? ''} onChange={(next) => set(index, next)} />
              ))}
            </tbody>
          </table>
        </div>
      </Card>
      <Card title="Preview" description={preview.rows.length === 1 ? 'The first row as it will be imported' : `The first ${Math.min(PREVIEW_ROWS, preview.rows.length)} rows as they will be imported`}>
        <PreviewTable preview={preview} choices={choices} />
      </Card>
      <div className="import-actions">
        {problems.length > 0 && (
          <ul className="import-problems" role="status">
            {problems.map((p) => (
              <li key={p}>{p}</li>
            ))}
          </ul>
        )}
        {start.error != null && <UploadRefused error={start.error} />}
        <Button className="button button-primary" isDisabled={problems.length > 0} isPending={start.isPending} onPress={() => once(() => start.mutateAsync())}>
          {start.isPending ? 'Uploading…' : 'Import contacts'}
        </Button>
      </div>
    </>
  )
}

/** Steps 1 and 2 of an import: the file, then its columns; `onStarted` gets the import the server began. */
export function NewImport({ onStarted }: { onStarted: (job: ContactImport) => void }) {
  const [chosen, setChosen] = useState<{ file: File; preview: CsvPreview }>()
  const [problem, setProblem] = useState<string>()
  const choose = async (file: File) => {
    if (file.size > MAX_BYTES) return setProblem(`${file.name} is ${fileSize(file.size)}: the most an import takes is 512 MB. Split it into smaller files.`)
    if (file.size === 0) return setProblem(`${file.name} is empty: the first line must name the columns.`)
    const preview = await readPreview(file)
    if (preview.header.length === 0) return setProblem(`${file.name} has no header: the first line must name the columns.`)
    setProblem(undefined)
    setChosen({ file, preview })
  }
  return (
    <>
      <ImportSteps current={chosen ? 2 : 1} />
      {chosen ? <MapColumns file={chosen.file} preview={chosen.preview} onBack={() => setChosen(undefined)} onStarted={onStarted} /> : <ChooseFile onFile={choose} problem={problem} />}
    </>
  )
}
