import * as migration_20261122_020806_initial from './20261122_020806_initial';
import * as migration_20261122_023545_billing_and_licensing from './20261122_023545_billing_and_licensing';

export const migrations = [
  {
    up: migration_20261122_020806_initial.up,
    down: migration_20261122_020806_initial.down,
    name: '20261122_020806_initial',
  },
  {
    up: migration_20261122_023545_billing_and_licensing.up,
    down: migration_20261122_023545_billing_and_licensing.down,
    name: '20261122_023545_billing_and_licensing'
  },
];
