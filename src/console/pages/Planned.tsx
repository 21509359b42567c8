import { PageHeader } from '../components/PageHeader.tsx'
import { Empty } from '../components/States.tsx'

/** A page of issue 15 not built yet: what it will show, and the API that has it meanwhile. */
export function Planned({ title, what, route }: { title: string; what: string; route: string }) {
  return (
    <>
      <PageHeader title={title} description={what} />
      <Empty title="This page is not in the console yet">
        <p>
          The API has it meanwhile: <code>{route}</code> (see <a href="/swagger">the API reference</a>).
        </p>
      </Empty>
    </>
  )
}
