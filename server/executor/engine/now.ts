/** SQL for the database clock in UTC (timestamps are stored without time zone): every lease and due time is the database's, never a process's. */
export const NOW = `(now() AT TIME ZONE 'UTC')`;
