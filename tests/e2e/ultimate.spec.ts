import { test, ultimateJourney } from './helpers'

test('an Ultimate buyer requests repository access and becomes a collaborator after accepting the invitation, makes an API key and asks support', async ({
  page,
}) => {
  await ultimateJourney(page)
})
