import * as migration_20261122_020806_initial from './20261122_020806_initial';
import * as migration_20261122_023545_billing_and_licensing from './20261122_023545_billing_and_licensing';
import * as migration_20261122_025011_license_email_sent_at from './20261122_025011_license_email_sent_at';
import * as migration_20261122_030119_delivery from './20261122_030119_delivery';
import * as migration_20261122_031808_auth_tokens from './20261122_031808_auth_tokens';
import * as migration_20261122_032000_rate_limits from './20261122_032000_rate_limits';
import * as migration_20261122_032430_oauth_identities from './20261122_032430_oauth_identities';
import * as migration_20261122_140743_repo_usernames from './20261122_140743_repo_usernames';
import * as migration_20261122_140808_account_security from './20261122_140808_account_security';
import * as migration_20261122_141018_scheduled_jobs from './20261122_141018_scheduled_jobs';
import * as migration_20261122_160454_repo_username_removal from './20261122_160454_repo_username_removal';
import * as migration_20261122_164704_content from './20261122_164704_content';
import * as migration_20261122_171554_api_keys from './20261122_171554_api_keys';
import * as migration_20261122_172007_templates_and_support from './20261122_172007_templates_and_support';
import * as migration_20261126_191528_repo_access_invitations from './20261126_191528_repo_access_invitations';
import * as migration_20261126_192904_rate_limit_prune_job from './20261126_192904_rate_limit_prune_job';
import * as migration_20261126_224115_slug_fields from './20261126_224115_slug_fields';
import * as migration_20261127_022330_license_lifecycle from './20261127_022330_license_lifecycle';
import * as migration_20261127_025227_invoices_and_tax from './20261127_025227_invoices_and_tax';
import * as migration_20261127_052532_teams_and_activations from './20261127_052532_teams_and_activations';
import * as migration_20261127_122523_outbound_webhooks from './20261127_122523_outbound_webhooks';
import * as migration_20261128_151235_upgrade_credit_before_tax from './20261128_151235_upgrade_credit_before_tax';
import * as migration_20261128_182700_webhook_retention_job from './20261128_182700_webhook_retention_job';
import * as migration_20261128_233458_licenses_seats_required from './20261128_233458_licenses_seats_required';
import * as migration_20261129_011642_account_deletion from './20261129_011642_account_deletion';
import * as migration_20261129_044303_community_discord from './20261129_044303_community_discord';
import * as migration_20261207_033929_checkout_recovery from './20261207_033929_checkout_recovery';
import * as migration_20261207_042054_affiliates from './20261207_042054_affiliates';

export const migrations = [
  {
    up: migration_20261122_020806_initial.up,
    down: migration_20261122_020806_initial.down,
    name: '20261122_020806_initial',
  },
  {
    up: migration_20261122_023545_billing_and_licensing.up,
    down: migration_20261122_023545_billing_and_licensing.down,
    name: '20261122_023545_billing_and_licensing',
  },
  {
    up: migration_20261122_025011_license_email_sent_at.up,
    down: migration_20261122_025011_license_email_sent_at.down,
    name: '20261122_025011_license_email_sent_at',
  },
  {
    up: migration_20261122_030119_delivery.up,
    down: migration_20261122_030119_delivery.down,
    name: '20261122_030119_delivery',
  },
  {
    up: migration_20261122_031808_auth_tokens.up,
    down: migration_20261122_031808_auth_tokens.down,
    name: '20261122_031808_auth_tokens',
  },
  {
    up: migration_20261122_032000_rate_limits.up,
    down: migration_20261122_032000_rate_limits.down,
    name: '20261122_032000_rate_limits',
  },
  {
    up: migration_20261122_032430_oauth_identities.up,
    down: migration_20261122_032430_oauth_identities.down,
    name: '20261122_032430_oauth_identities',
  },
  {
    up: migration_20261122_140743_repo_usernames.up,
    down: migration_20261122_140743_repo_usernames.down,
    name: '20261122_140743_repo_usernames',
  },
  {
    up: migration_20261122_140808_account_security.up,
    down: migration_20261122_140808_account_security.down,
    name: '20261122_140808_account_security',
  },
  {
    up: migration_20261122_141018_scheduled_jobs.up,
    down: migration_20261122_141018_scheduled_jobs.down,
    name: '20261122_141018_scheduled_jobs',
  },
  {
    up: migration_20261122_160454_repo_username_removal.up,
    down: migration_20261122_160454_repo_username_removal.down,
    name: '20261122_160454_repo_username_removal',
  },
  {
    up: migration_20261122_164704_content.up,
    down: migration_20261122_164704_content.down,
    name: '20261122_164704_content',
  },
  {
    up: migration_20261122_171554_api_keys.up,
    down: migration_20261122_171554_api_keys.down,
    name: '20261122_171554_api_keys',
  },
  {
    up: migration_20261122_172007_templates_and_support.up,
    down: migration_20261122_172007_templates_and_support.down,
    name: '20261122_172007_templates_and_support',
  },
  {
    up: migration_20261126_191528_repo_access_invitations.up,
    down: migration_20261126_191528_repo_access_invitations.down,
    name: '20261126_191528_repo_access_invitations',
  },
  {
    up: migration_20261126_192904_rate_limit_prune_job.up,
    down: migration_20261126_192904_rate_limit_prune_job.down,
    name: '20261126_192904_rate_limit_prune_job',
  },
  {
    up: migration_20261126_224115_slug_fields.up,
    down: migration_20261126_224115_slug_fields.down,
    name: '20261126_224115_slug_fields',
  },
  {
    up: migration_20261127_022330_license_lifecycle.up,
    down: migration_20261127_022330_license_lifecycle.down,
    name: '20261127_022330_license_lifecycle',
  },
  {
    up: migration_20261127_025227_invoices_and_tax.up,
    down: migration_20261127_025227_invoices_and_tax.down,
    name: '20261127_025227_invoices_and_tax',
  },
  {
    up: migration_20261127_052532_teams_and_activations.up,
    down: migration_20261127_052532_teams_and_activations.down,
    name: '20261127_052532_teams_and_activations',
  },
  {
    up: migration_20261127_122523_outbound_webhooks.up,
    down: migration_20261127_122523_outbound_webhooks.down,
    name: '20261127_122523_outbound_webhooks',
  },
  {
    up: migration_20261128_151235_upgrade_credit_before_tax.up,
    down: migration_20261128_151235_upgrade_credit_before_tax.down,
    name: '20261128_151235_upgrade_credit_before_tax',
  },
  {
    up: migration_20261128_182700_webhook_retention_job.up,
    down: migration_20261128_182700_webhook_retention_job.down,
    name: '20261128_182700_webhook_retention_job',
  },
  {
    up: migration_20261128_233458_licenses_seats_required.up,
    down: migration_20261128_233458_licenses_seats_required.down,
    name: '20261128_233458_licenses_seats_required',
  },
  {
    up: migration_20261129_011642_account_deletion.up,
    down: migration_20261129_011642_account_deletion.down,
    name: '20261129_011642_account_deletion',
  },
  {
    up: migration_20261129_044303_community_discord.up,
    down: migration_20261129_044303_community_discord.down,
    name: '20261129_044303_community_discord',
  },
  {
    up: migration_20261207_033929_checkout_recovery.up,
    down: migration_20261207_033929_checkout_recovery.down,
    name: '20261207_033929_checkout_recovery',
  },
  {
    up: migration_20261207_042054_affiliates.up,
    down: migration_20261207_042054_affiliates.down,
    name: '20261207_042054_affiliates'
  },
];
