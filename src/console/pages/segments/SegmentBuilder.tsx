import { keepPreviousData, useMutation, useQuery, useQueryClient } from '@tanstack/react-query'
import { useMemo, useState, type FormEvent } from 'react'
import { Button, Form, Switch } from 'react-aria-components'
import { Link, useLocation, useParams } from 'wouter'
import { ApiError } from '../../api/api-errors.ts'
import { useApi } from '../../api/context.tsx'
import { segmentsApi, type Segment } from '../../api/segments.api.ts'
import { useProject, useProjectKey } from '../../app/project.tsx'
import { ConfirmDialog } from '../../components/ConfirmDialog.tsx'
import { Card } from '../../components/Card.tsx'
import { Field } from '../../components/Field.tsx'
import { fieldError, FormErrors } from '../../components/FormErrors.tsx'
import { PageHeader } from '../../components/PageHeader.tsx'
import { Segmented } from '../../components/Segmented.tsx'
import { ErrorState, Loading } from '../../components/States.tsx'
import { useSubmitOnce } from '../../components/SubmitButton.tsx'
import { toast } from '../../components/Toast.tsx'
import { useDebounced } from '../../lib/debounce.ts'
import { fromCondition, mayEditSegments, newCondition, toCondition, type Condition, type DraftCondition } from '../../lib/segment-builder.ts'
import { ConditionEditor } from './ConditionEditor.tsx'
import { LiveCount } from './LiveCount.tsx'
import { StaticMembers } from './StaticMembers.tsx'

type Kind = 'DYNAMIC' | 'STATIC'

/** The live count of a condition: asked once it has stayed the same for 300 ms; the last answer stays shown meanwhile. */
function usePreview(condition: Condition, enabled: boolean) {
  const { api } = useApi()
  const settled = useDebounced(JSON.stringify(condition), 300)
  return useQuery({
    queryKey: useProjectKey('segment-preview', settled),
    queryFn: () => segmentsApi(api).preview(JSON.parse(settled) as Condition),
    enabled,
    placeholderData: keepPreviousData,
    retry: false,
    staleTime: 10_000,
  })
}

function TrackingSwitch({ value, onChange, readOnly }: { value: boolean; onChange: (on: boolean) => void; readOnly: boolean }) {
  const hint = 'Records each contact that enters or leaves as an event of the contact (segment.<id>.entry and .exit), which workflows can start on.'
  if (readOnly) {
    return (
      <p className="tracking-state">
        Membership tracking: <strong>{value ? 'On' : 'Off'}</strong>
      </p>
    )
  }
  return (
    <div className="field">
      <Switch className="switch" isSelected={value} onChange={onChange}>
        <span className="switch-track" aria-hidden="true">
          <span className="switch-thumb" />
        </span>
        Track membership
      </Switch>
      <p className="field-hint">{hint}</p>
    </div>
  )
}

function SegmentForm({ segment }: { segment: Segment | undefined }) {
  const { api } = useApi()
  const { project } = useProject()
  const queries = useQueryClient()
  const [, navigate] = useLocation()
  const once = useSubmitOnce()
  const listKey = useProjectKey('segments')
  const segmentKey = useProjectKey('segment', segment?.id)
  const readOnly = !mayEditSegments(project.role)
  const [name, setName] = useState(segment?.name ?? '')
  const [description, setDescription] = useState(segment?.description ?? '')
  const [kind, setKind] = useState<Kind>(segment?.type ?? 'DYNAMIC')
  const [tracking, setTracking] = useState(segment?.trackMembership ?? false)
  const [draft, setDraft] = useState<DraftCondition>(() => (segment?.condition ? fromCondition(segment.condition as Condition) : newCondition()))
  const condition = useMemo(() => toCondition(draft), [draft])
  const dynamic = kind === 'DYNAMIC'
  const preview = usePreview(condition, dynamic)
  const others = useQuery({ queryKey: listKey, queryFn: segmentsApi(api).list })
  const segments = (others.data ?? []).filter((s) => s.id !== segment?.id).map((s) => ({ id: s.id, name: s.name }))

  const saved = (next: Segment) => {
    queries.setQueryData(keyWithId(segmentKey, next.id), next)
    void queries.invalidateQueries({ queryKey: listKey })
    toast({ title: segment ? 'Segment saved' : 'Segment created', description: `${next.name}: ${next.memberCount.toLocaleString('en-US')} members` })
  }
  const save = useMutation({
    mutationFn: () => {
      const common = { name, description: description.trim() === '' ? null : description, trackMembership: tracking }
      if (segment) return segmentsApi(api).update(segment.id, { ...common, ...(dynamic && { condition }) })
      return segmentsApi(api).create({ ...common, type: kind, ...(dynamic && { condition }) })
    },
    onSuccess: (next) => {
      saved(next)
      if (!segment) navigate(`/segments/${next.id}`, { replace: true })
    },
  })
  const remove = useMutation({
    mutationFn: () => segmentsApi(api).remove(segment!.id),
    onSuccess: () => {
      void queries.invalidateQueries({ queryKey: listKey })
      toast({ title: 'Segment deleted', description: segment!.name })
      navigate('/segments')
    },
  })
  const problems = preview.error instanceof ApiError ? preview.error.fields : save.error instanceof ApiError ? save.error.fields.filter((p) => p.field.startsWith('condition')) : []
  const submit = (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault()
    once(() => save.mutateAsync())
  }

  return (
    <>
      <PageHeader
        title={segment ? segment.name : 'New segment'}
        description={
          <>
            <Link href="/segments">Segments</Link> · {dynamic ? 'Dynamic: the contacts its condition matches now.' : 'Static: the contacts listed in it.'}
          </>
        }
        actions={
          segment &&
          !readOnly && (
            <ConfirmDialog trigger="Delete" triggerLabel={`Delete segment ${segment.name}`} title={`Delete ${segment.name}?`} confirm="Delete segment" onConfirm={() => remove.mutateAsync()} pending={remove.isPending} error={remove.error}>
              <p>The segment goes, with its list and its recorded memberships; its contacts stay. A segment another segment names cannot be deleted.</p>
            </ConfirmDialog>
          )
        }
      />
      {readOnly && <p className="muted">Your role ({project.role}) can see segments and count them; an owner, admin or member changes them.</p>}
      <div className={dynamic ? 'builder-layout' : 'builder-layout builder-layout-single'}>
        <Form onSubmit={submit} className="builder-form" validationBehavior="aria">
          <Card title="Details">
            <div className="form">
              <FormErrors error={save.error} fields={['name', 'description', 'type', 'trackMembership', ...problems.map((p) => p.field)]} />
              <Field label="Name" name="name" value={name} onChange={setName} isRequired isDisabled={readOnly} error={fieldError(save.error, 'name')} />
              <Field label="Description" name="description" value={description} onChange={setDescription} isDisabled={readOnly} error={fieldError(save.error, 'description')} />
              {!segment && !readOnly && (
                <div className="field">
                  <span className="field-label">Kind</span>
                  <Segmented
                    label="Kind"
                    value={kind}
                    options={[
                      { id: 'DYNAMIC', label: 'Dynamic: by condition' },
                      { id: 'STATIC', label: 'Static: a list' },
                    ]}
                    onChange={setKind}
                  />
                </div>
              )}
              <TrackingSwitch value={tracking} onChange={setTracking} readOnly={readOnly} />
            </div>
          </Card>
          {dynamic && (
            <Card title="Condition" description="Filters on the contact's address, subscription, dates, data, events, email activity and other segments.">
              <ConditionEditor condition={draft} onChange={setDraft} env={{ segments, problems, readOnly }} />
            </Card>
          )}
          {!readOnly && (
            <div className="builder-save">
              <Button type="submit" className="button button-primary" isPending={save.isPending}>
                {segment ? 'Save segment' : 'Create segment'}
              </Button>
              {!segment && !dynamic && <span className="muted">Members are added once it is created.</span>}
            </div>
          )}
        </Form>
        {dynamic && <LiveCount preview={preview.data} error={preview.error} counting={preview.isFetching} />}
      </div>
      {segment && !dynamic && <StaticMembers segment={segment} readOnly={readOnly} onChanged={(next) => queries.setQueryData(segmentKey, next)} />}
    </>
  )
}

const keyWithId = (key: unknown[], id: string) => [...key.slice(0, -1), id]

/** /segments/new makes a segment; /segments/<id> shows one, its condition in the builder. */
export default function SegmentBuilder() {
  const { id } = useParams<{ id: string }>()
  const { api } = useApi()
  const isNew = id === 'new'
  const segment = useQuery({ queryKey: useProjectKey('segment', id), queryFn: () => segmentsApi(api).get(id), enabled: !isNew })
  if (isNew) return <SegmentForm key="new" segment={undefined} />
  if (segment.error) {
    return (
      <>
        <PageHeader title="Segment" description={<Link href="/segments">Segments</Link>} />
        <ErrorState error={segment.error} retry={() => segment.refetch()} />
      </>
    )
  }
  if (!segment.data) return <Loading label="Loading the segment" />
  return <SegmentForm key={segment.data.id} segment={segment.data} />
}
