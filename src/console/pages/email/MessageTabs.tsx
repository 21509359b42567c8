import { Tab, TabList, TabPanel, Tabs } from 'react-aria-components'
import type { Email } from '../../api/emails.api.ts'
import { Checks } from './Checks.tsx'
import { Content } from './Content.tsx'
import { Headers } from './Headers.tsx'

/** The message three ways: rendered, its headers, and what a receiving server would make of it. */
export function MessageTabs({ email }: { email: Email }) {
  // The signature is made at the first attempt: headers and checks are read again once it is.
  const signed = email.deliveries.some((d) => d.attempts > 0)
  return (
    <Tabs className="message-tabs">
      <TabList aria-label="The message" className="tab-list">
        <Tab id="content" className="tab">
          Message
        </Tab>
        <Tab id="headers" className="tab">
          Headers
        </Tab>
        <Tab id="checks" className="tab">
          Checks
        </Tab>
      </TabList>
      <TabPanel id="content" className="tab-panel">
        <Content email={email} />
      </TabPanel>
      <TabPanel id="headers" className="tab-panel">
        <Headers emailId={email.id} signed={signed} />
      </TabPanel>
      <TabPanel id="checks" className="tab-panel">
        <Checks emailId={email.id} signed={signed} />
      </TabPanel>
    </Tabs>
  )
}
