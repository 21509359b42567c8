import { PageHeader } from '../../components/PageHeader.tsx'

/** Placeholder until its page lands (issue 27). */
export default function SegmentList() {
  return <PageHeader title="SegmentList" />
}
