import { Link } from 'wouter'
import { PageHeader } from '../components/PageHeader.tsx'
import { Empty } from '../components/States.tsx'

export default function NotFound() {
  return (
    <>
      <PageHeader title="Page not found" />
      <Empty title="There is no console page at this address.">
        <p>
          <Link href="/">Go to the overview</Link>
        </p>
      </Empty>
    </>
  )
}
