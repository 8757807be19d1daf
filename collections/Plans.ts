import type { CollectionBeforeValidateHook, CollectionConfig, TextFieldSingleValidation } from 'payload'
import { ValidationError } from 'payload'

import { or } from '../src/access/compose'
import { admins, staff, staffField } from '../src/access/roles'
import { UPDATE_POLICIES } from '../src/plans/update-policies'
import { PRICE_ID_PATTERN } from '../src/plans/catalog'
import { expirePlans } from '../src/plans/revalidate'
import type { Plan } from '../src/payload-types'
import { featureOptions, GROUPS, labelled } from './options'

const validPriceId: TextFieldSingleValidation = (value) =>
  value === null || value === undefined || value === '' || PRICE_ID_PATTERN.test(value)
    ? true
    : 'A price ID starts with "price_" followed by letters, digits or underscores.'

const validDiscordRoleId: TextFieldSingleValidation = (value) =>
  value === null || value === undefined || value === '' || /^\d{17,20}$/.test(value)
    ? true
    : 'A Discord role ID is 17 to 20 digits (Copy Role ID in Discord, with Developer Mode on).'

type PriceIds = { monthly?: string | null; yearly?: string | null }

const normalise = (value: unknown): string | null =>
  typeof value === 'string' && value.trim() !== '' ? value.trim() : null

/**
 * Rules that span fields or rows: a free plan has no prices, a lifetime plan has one price ID in
 * the monthly slot, and no price ID belongs to two plans (or to both slots of one plan).
 */
const checkPlanRules: CollectionBeforeValidateHook<Plan> = async ({ data, originalDoc, req }) => {
  if (!data) return data
  const merged = { ...originalDoc, ...data }
  const priceIds: PriceIds = { ...(originalDoc?.priceIds ?? {}), ...(data.priceIds ?? {}) }
  const monthly = normalise(priceIds.monthly)
  const yearly = normalise(priceIds.yearly)
  const renewal = normalise(merged.renewalPriceId)
  const errors: { path: string; message: string }[] = []

  if (merged.isFree) {
    if (monthly || yearly) errors.push({ path: 'priceIds.monthly', message: 'A free plan has no price IDs.' })
  } else if (!merged.billing) {
    errors.push({ path: 'billing', message: 'A paid plan is either lifetime or recurring.' })
  } else if (merged.billing === 'lifetime' && yearly) {
    errors.push({ path: 'priceIds.yearly', message: 'A lifetime plan keeps its price ID in the monthly slot only.' })
  }
  if (monthly && monthly === yearly) {
    errors.push({ path: 'priceIds.yearly', message: 'The monthly and yearly price IDs must differ.' })
  }
  if (renewal && (merged.isFree || merged.billing !== 'lifetime')) {
    errors.push({ path: 'renewalPriceId', message: 'Only a lifetime plan sells renewals of its updates.' })
  } else if (renewal && (renewal === monthly || renewal === yearly)) {
    errors.push({ path: 'renewalPriceId', message: "The renewal needs a price of its own, not the plan's price." })
  }
  if (merged.updatePolicy === 'months' && !(typeof merged.updateMonths === 'number' && merged.updateMonths >= 1)) {
    errors.push({ path: 'updateMonths', message: 'Say how many months of updates a license gets.' })
  }

  const slots = [
    ['priceIds.monthly', monthly],
    ['priceIds.yearly', yearly],
    ['renewalPriceId', renewal],
  ] as const
  for (const [path, id] of slots) {
    if (id === null) continue
    const clash = await req.payload.find({
      collection: 'plans',
      where: {
        and: [
          ...(originalDoc?.id !== undefined ? [{ id: { not_equals: originalDoc.id } }] : []),
          {
            or: [
              { 'priceIds.monthly': { equals: id } },
              { 'priceIds.yearly': { equals: id } },
              { renewalPriceId: { equals: id } },
            ],
          },
        ],
      },
      limit: 1,
      depth: 0,
      req,
    })
    const other = clash.docs[0]
    if (other) errors.push({ path, message: `${id} is already used by the plan "${other.slug}".` })
  }

  if (errors.length > 0) throw new ValidationError({ collection: 'plans', errors }, req.t)
  return {
    ...data,
    priceIds: { ...(data.priceIds ?? {}), monthly, yearly },
    ...('renewalPriceId' in data ? { renewalPriceId: renewal } : {}),
  }
}

export const Plans: CollectionConfig = {
  slug: 'plans',
  labels: { singular: 'Plan', plural: 'Plans' },
  admin: {
    useAsTitle: 'name',
    defaultColumns: ['name', 'slug', 'monthlyPrice', 'yearlyPrice', 'billing', 'active', 'order'],
    group: GROUPS.sales,
    description: 'What customers can buy, in the order of the pricing page. Only admins change plans.',
  },
  defaultSort: 'order',
  access: {
    // Anyone reads active plans (the pricing page); staff also see inactive ones.
    read: or(staff, () => ({ active: { equals: true } })),
    create: admins,
    update: admins,
    delete: admins,
  },
  hooks: {
    beforeValidate: [checkPlanRules],
    afterChange: [expirePlans],
    afterDelete: [expirePlans],
  },
  fields: [
    {
      name: 'slug',
      label: 'Plan ID',
      type: 'text',
      required: true,
      unique: true,
      index: true,
      validate: (value: string | null | undefined) =>
        typeof value === 'string' && /^[a-z][a-z0-9_-]{0,31}$/.test(value)
          ? true
          : 'Lower-case letters, digits, "-" or "_", starting with a letter (free, standard, ultimate, pro).',
      admin: { position: 'sidebar' },
    },
    { name: 'name', type: 'text', required: true, maxLength: 80 },
    { name: 'description', type: 'textarea', maxLength: 500 },
    {
      type: 'row',
      fields: [
        { name: 'isFree', label: 'Free plan', type: 'checkbox', defaultValue: false },
        {
          name: 'billing',
          label: 'Billing',
          type: 'select',
          options: [
            { label: 'Lifetime (one-time payment)', value: 'lifetime' },
            { label: 'Recurring (monthly or yearly)', value: 'recurring' },
          ],
          admin: { condition: (data) => !data?.isFree },
        },
      ],
    },
    {
      type: 'row',
      fields: [
        {
          name: 'monthlyPrice',
          label: 'Monthly price',
          type: 'number',
          required: true,
          min: 0,
          admin: { description: 'Shown on the pricing page; the one-time price for lifetime plans.' },
        },
        {
          name: 'yearlyPrice',
          label: 'Yearly price',
          type: 'number',
          min: 0,
          admin: { description: 'Empty for free and lifetime plans.' },
        },
      ],
    },
    {
      name: 'priceIds',
      label: 'Processor price IDs',
      type: 'group',
      admin: { description: 'Lifetime plans keep their one price ID in the monthly slot.' },
      fields: [
        { name: 'monthly', type: 'text', unique: true, validate: validPriceId },
        { name: 'yearly', type: 'text', unique: true, validate: validPriceId },
      ],
    },
    {
      name: 'features',
      label: 'Marketing lines',
      type: 'array',
      fields: [{ name: 'text', type: 'text', required: true, maxLength: 160 }],
    },
    {
      name: 'featureAccess',
      type: 'select',
      hasMany: true,
      required: true,
      label: 'Grants',
      options: featureOptions,
      admin: { description: 'Feature keys this plan grants: the access rules read these.' },
    },
    {
      type: 'row',
      fields: [
        { name: 'isPopular', label: 'Highlight as most popular', type: 'checkbox', defaultValue: false },
        {
          name: 'allowPromotionCodes',
          label: 'Accept promotion codes at checkout',
          type: 'checkbox',
          defaultValue: false,
        },
      ],
    },
    {
      type: 'row',
      fields: [
        {
          name: 'updatePolicy',
          label: 'Updates included',
          type: 'select',
          defaultValue: 'lifetime',
          options: labelled(UPDATE_POLICIES, {
            lifetime: 'Every release, for life',
            major: 'Releases of the major version current at purchase',
            months: 'Releases published within a number of months',
          }),
          admin: {
            description:
              'Recorded on each license when it is granted: a later change here applies to new licenses only.',
          },
        },
        {
          name: 'updateMonths',
          label: 'Months of updates',
          type: 'number',
          min: 1,
          max: 120,
          admin: { condition: (data) => data?.updatePolicy === 'months', description: 'Also what one renewal adds.' },
        },
      ],
    },
    {
      type: 'row',
      fields: [
        {
          name: 'maxSeats',
          label: 'Seats per license, at most',
          type: 'number',
          defaultValue: 1,
          min: 1,
          max: 1000,
          admin: {
            description:
              'How many people one purchase may cover: the buyer picks 1 up to this at checkout and assigns the extra seats by email. 1: no team.',
          },
        },
        {
          name: 'maxActivations',
          label: 'Activations per license, at most',
          type: 'number',
          min: 1,
          max: 100000,
          admin: {
            description:
              'How many installations one license key may be activated on at once. Empty: unlimited, and apps need no activation.',
          },
        },
      ],
    },
    {
      name: 'renewalPriceId',
      label: 'Renewal price ID',
      type: 'text',
      unique: true,
      validate: validPriceId,
      admin: {
        condition: (data) => data?.billing === 'lifetime' && data?.updatePolicy !== 'lifetime',
        description:
          "A one-time price that extends a license's updates (the next major version, or more months). Empty: no renewals.",
      },
    },
    {
      name: 'discordRoleId',
      label: 'Discord role ID',
      type: 'text',
      // Staff set it; nobody else needs to know which role a plan gives.
      access: { read: staffField },
      validate: validDiscordRoleId,
      admin: {
        description:
          'The Discord role a license of this plan gives, seat members included (in Discord: Server Settings → Roles → right-click the role → Copy Role ID). Empty: no role.',
      },
    },
    {
      name: 'buttonText',
      label: 'Button text',
      type: 'text',
      required: true,
      maxLength: 40,
      admin: { description: "The pricing page's button, such as Buy Standard." },
    },
    {
      name: 'order',
      type: 'number',
      required: true,
      defaultValue: 0,
      admin: { position: 'sidebar', description: 'Position on the pricing page, lowest first.' },
    },
    {
      name: 'active',
      label: 'On sale',
      type: 'checkbox',
      defaultValue: true,
      admin: { position: 'sidebar', description: 'Off: hidden from the pricing page.' },
    },
  ],
}
