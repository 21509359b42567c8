import type { SmtpReply } from '../classify.ts'
import type { AutomationRule } from './rules.ts'

/** The first rule a reply matches (every condition a rule gives must hold), or undefined. */
export function matchAutomation(reply: SmtpReply, rules: readonly AutomationRule[]): AutomationRule | undefined {
  return rules.find(
    (rule) =>
      (!rule.codes || rule.codes.includes(reply.code)) &&
      (!rule.enhanced || (reply.enhanced !== undefined && rule.enhanced.test(reply.enhanced))) &&
      (!rule.text || rule.text.test(reply.text)),
  )
}
