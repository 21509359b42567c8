import { useLocation, useParams } from 'wouter'
import { PageHeader } from '../components/PageHeader.tsx'
import { Tabs } from '../components/Tabs.tsx'
import NotFound from './NotFound.tsx'
import { DmarcTab } from './reports/DmarcTab.tsx'
import { ReceivedTab } from './reports/ReceivedTab.tsx'

/** Each tab's address under /reports, so that a tab can be linked to and reloaded. */
const TABS = { dmarc: '', bounces: 'bounces' } as const

/** /reports: what receivers' DMARC reports say of the project's domains; /reports/bounces: the bounces and complaints received. */
export default function Reports() {
  const rest = useParams<{ '*'?: string }>()['*'] ?? ''
  const [, navigate] = useLocation()
  const selected = (Object.keys(TABS) as Array<keyof typeof TABS>).find((tab) => TABS[tab] === rest)
  if (!selected) return <NotFound />
  return (
    <>
      <PageHeader
        title="Reports"
        description="What receivers report back about your mail: DMARC aggregate reports on each domain, and the bounces and complaints this server received, with what Mailstead did about each."
      />
      <Tabs
        label="Reports"
        selected={selected}
        onChange={(id) => navigate(TABS[id as keyof typeof TABS] ? `/reports/${TABS[id as keyof typeof TABS]}` : '/reports')}
        items={[
          { id: 'dmarc', label: 'DMARC', content: <DmarcTab /> },
          { id: 'bounces', label: 'Bounces and complaints', content: <ReceivedTab /> },
        ]}
      />
    </>
  )
}
