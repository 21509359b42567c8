import type { ReactNode } from 'react'
import { Tab, TabList, TabPanel, Tabs as AriaTabs } from 'react-aria-components'

export interface TabItem {
  id: string
  label: ReactNode
  content: ReactNode
}

/** Tabs (React Aria: arrow keys move between them, the panel follows), underlined when selected. */
export function Tabs({ label, items, selected, onChange, className }: { label: string; items: TabItem[]; selected?: string; onChange?: (id: string) => void; className?: string }) {
  return (
    <AriaTabs className={['tabs', className].filter(Boolean).join(' ')} selectedKey={selected} onSelectionChange={onChange ? (key) => onChange(String(key)) : undefined}>
      <TabList aria-label={label} className="tab-list">
        {items.map((item) => (
          <Tab key={item.id} id={item.id} className="tab">
            {item.label}
          </Tab>
        ))}
      </TabList>
      {items.map((item) => (
        <TabPanel key={item.id} id={item.id} className="tab-panel">
          {item.content}
        </TabPanel>
      ))}
    </AriaTabs>
  )
}
