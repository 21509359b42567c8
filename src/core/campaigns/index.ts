// The public surface of campaigns: what code outside src/core/campaigns/ may import. Inside the folder,
// files import each other by path, never through this file, so that it adds no cycle.
export * from './activity.ts'
export * from './campaign-actions.ts'
export * from './campaign-test.ts'
export * from './campaign.ts'
export * from './campaigns.service.ts'
export * from './campaign-message.ts'
export * from './handoff.ts'
export * from './listing.ts'
export {
  activeCampaigns,
  campaignById,
  campaignEmailIds,
  campaignForStep,
  claimCampaigns,
  deleteRecipientsOf,
  hasWaitingDeliveries,
  listedByDomain,
  startDueCampaigns,
  unclaimCampaigns,
  updateCampaignRow,
} from './campaigns.repository.ts'
export * from './campaign-queries.ts'
