import { lazy } from 'react'
import { Route, Switch } from 'wouter'
import NotFound from './NotFound.tsx'

const SegmentList = lazy(() => import('./segments/SegmentList.tsx'))
const SegmentBuilder = lazy(() => import('./segments/SegmentBuilder.tsx'))

/** /segments: the list; /segments/new and /segments/:id: the builder. */
export default function Segments() {
  return (
    <Switch>
      <Route path="/segments" component={SegmentList} />
      <Route path="/segments/:id" component={SegmentBuilder} />
      <Route component={NotFound} />
    </Switch>
  )
}
