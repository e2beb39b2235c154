// One pg pool per process, shared by Prisma (through the driver adapter) and by the few raw paths that
// stream rows (list endpoints) or insert sets (transactions).
import { PrismaPg } from '@prisma/adapter-pg';
import { Pool } from 'pg';
import { PrismaClient } from '../generated/prisma/client';
import type { Config } from './config';

export type { PrismaClient };
export type Db = PrismaClient;
/** The client or an interactive-transaction client: repositories accept either. */
export type DbClient = Omit<PrismaClient, '$connect' | '$disconnect' | '$on' | '$transaction' | '$extends'>;

export interface Database {
  prisma: PrismaClient;
  pool: Pool;
  close(): Promise<void>;
}

export function createDatabase(config: Pick<Config, 'DATABASE_URL' | 'DB_POOL_SIZE'>): Database {
  const pool = new Pool({ connectionString: config.DATABASE_URL, max: config.DB_POOL_SIZE });
  // An idle client that loses its server must not crash the process; the next query reconnects.
  pool.on('error', () => undefined);
  const prisma = new PrismaClient({ adapter: new PrismaPg(pool) });
  return {
    prisma,
    pool,
    async close() {
      await prisma.$disconnect();
      await pool.end();
    },
  };
}
