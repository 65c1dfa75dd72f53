import { sql } from "kysely";
import type { ComponentStatus } from "../db/admin-tables.ts";
import type { Db } from "../db/database.ts";
import { underLimitLocks } from "../db/limits.ts";

/** SQL of the status page: heartbeats, call stats, samples, component states, incidents. */
export function createStatusRepository(db: Db) {
  return {
    /** Forgets the address's status subscription. */
    async forgetAddress(address: string): Promise<void> {
      await db.deleteFrom("status_subscribers").where("email", "=", address).execute();
    },

    async ping(): Promise<void> {
      await sql`SELECT 1`.execute(db);
    },

    async heartbeat(workerId: string, at: Date) {
      await db
        .insertInto("worker_heartbeats")
        .values({ worker_id: workerId, seen_at: at })
        .onConflict((oc) => oc.column("worker_id").doUpdateSet({ seen_at: at }))
        .execute();
    },

    async lastHeartbeat(): Promise<Date | null> {
      const row = await db
        .selectFrom("worker_heartbeats")
        .select((eb) => eb.fn.max("seen_at").as("at"))
        .executeTakeFirst();
      return row?.at ? new Date(row.at) : null;
    },

    async callTotals(since: Date) {
      const rows = await db
        .selectFrom("provider_call_stats")
        .select([
          "provider",
          (eb) => eb.fn.sum<number>("calls").as("calls"),
          (eb) => eb.fn.sum<number>("errors").as("errors"),
        ])
        .where("minute", ">=", since)
        .groupBy("provider")
        .execute();
      return new Map(
        rows.map((r) => [r.provider, { calls: Number(r.calls), errors: Number(r.errors) }]),
      );
    },

    async recordSamples(at: Date, statuses: { component: string; status: ComponentStatus }[]) {
      await db
        .insertInto("status_samples")
        .values(statuses.map((s) => ({ ...s, sampled_at: at })))
        .onConflict((oc) => oc.columns(["component", "sampled_at"]).doNothing())
        .execute();
    },

    /** Per component: samples since `since`, and how many of them were not 'down'. */
    async uptime(since: Date) {
      const rows = await db
        .selectFrom("status_samples")
        .select([
          "component",
          (eb) => eb.fn.countAll<number>().as("total"),
          (eb) => eb.fn.count<number>("status").filterWhere("status", "!=", "down").as("up"),
        ])
        .where("sampled_at", ">=", since)
        .groupBy("component")
        .execute();
      return new Map(rows.map((r) => [r.component, { total: Number(r.total), up: Number(r.up) }]));
    },

    components() {
      return db.selectFrom("status_components").selectAll().execute();
    },

    async saveComponent(row: {
      component: string;
      status: ComponentStatus;
      since: Date;
      checked_at: Date;
    }) {
      await db
        .insertInto("status_components")
        .values(row)
        .onConflict((oc) =>
          oc
            .column("component")
            .doUpdateSet({ status: row.status, since: row.since, checked_at: row.checked_at }),
        )
        .execute();
    },

    openIncident(component: string) {
      return db
        .selectFrom("status_incidents")
        .selectAll()
        .where("component", "=", component)
        .where("resolved_at", "is", null)
        .executeTakeFirst();
    },

    async insertIncident(row: {
      component: string;
      title: string;
      description: string;
      worst_status: "degraded" | "down";
      started_at: Date;
    }) {
      const inserted = await db
        .insertInto("status_incidents")
        .values(row)
        .onConflict((oc) => oc.column("component").where("resolved_at", "is", null).doNothing())
        .returning("id")
        .executeTakeFirst();
      return inserted?.id ?? null;
    },

    async updateIncident(
      id: string,
      update: { worst_status?: "degraded" | "down"; title?: string; resolved_at?: Date },
    ) {
      await db.updateTable("status_incidents").set(update).where("id", "=", id).execute();
    },

    /** Incidents whose subscribers are not yet told that they opened, or that they resolved. */
    untoldIncidents() {
      return db
        .selectFrom("status_incidents")
        .selectAll()
        .where((eb) =>
          eb.or([
            eb("opened_told_at", "is", null),
            eb.and([eb("resolved_at", "is not", null), eb("resolved_told_at", "is", null)]),
          ]),
        )
        .orderBy("started_at")
        .limit(20)
        .execute();
    },

    async markTold(id: string, state: "opened" | "resolved", at: Date) {
      await db
        .updateTable("status_incidents")
        .set(state === "opened" ? { opened_told_at: at } : { resolved_told_at: at })
        .where("id", "=", id)
        .execute();
    },

    recentIncidents(since: Date, limit: number) {
      return db
        .selectFrom("status_incidents")
        .selectAll()
        .where((eb) => eb.or([eb("started_at", ">=", since), eb("resolved_at", "is", null)]))
        .orderBy("started_at", "desc")
        .limit(limit)
        .execute();
    },

    async prune(samplesBefore: Date, statsBefore: Date) {
      await db.deleteFrom("status_samples").where("sampled_at", "<", samplesBefore).execute();
      await db.deleteFrom("provider_call_stats").where("minute", "<", statsBefore).execute();
      await db.deleteFrom("worker_heartbeats").where("seen_at", "<", statsBefore).execute();
    },

    /**
     * Subscribes `email` (unconfirmed, with the confirmation token's hash) unless `ip` already
     * subscribed `max` new addresses since `since` (counted and decided under the address's
     * lock, so a parallel burst adds at most `max`). An address already on the list is not
     * counted: confirmed, it is left as it is (`send: false`); unconfirmed, it gets a new token
     * when its last link is older than `resendAfter` (a lost confirmation mail), else nothing.
     */
    subscribe(
      s: { email: string; ip: string; now: Date; tokenHash: string },
      limit: { max: number; since: Date; resendAfter: Date },
    ): Promise<{ limitedSince: Date } | { send: boolean }> {
      return underLimitLocks(db, [`status-subscribe:ip:${s.ip}`], async (trx) => {
        const known = await trx
          .selectFrom("status_subscribers")
          .select(["email", "confirmed_at", "created_at"])
          .where("email", "=", s.email)
          .executeTakeFirst();
        if (known) {
          if (known.confirmed_at || new Date(known.created_at) > limit.resendAfter)
            return { send: false };
          await trx
            .updateTable("status_subscribers")
            .set({ created_at: s.now, confirm_token_hash: s.tokenHash })
            .where("email", "=", s.email)
            .execute();
          return { send: true };
        }
        const recent = await trx
          .selectFrom("status_subscribers")
          .select((eb) => [eb.fn.countAll<number>().as("n"), eb.fn.min("created_at").as("oldest")])
          .where("ip", "=", s.ip)
          .where("created_at", ">", limit.since)
          .executeTakeFirstOrThrow();
        if (Number(recent.n) >= limit.max) {
          return { limitedSince: recent.oldest ? new Date(recent.oldest) : s.now };
        }
        await trx
          .insertInto("status_subscribers")
          .values({ email: s.email, ip: s.ip, created_at: s.now, confirm_token_hash: s.tokenHash })
          .onConflict((oc) => oc.column("email").doNothing())
          .execute();
        return { send: true };
      });
    },

    /** Confirms the address whose latest link has this token; its e-mail, or undefined. */
    async confirm(tokenHash: string, now: Date) {
      const row = await db
        .updateTable("status_subscribers")
        .set({ confirmed_at: now, confirm_token_hash: null })
        .where("confirm_token_hash", "=", tokenHash)
        .returning("email")
        .executeTakeFirst();
      return row?.email;
    },

    /** Every confirmed subscriber's address. */
    async confirmedSubscribers(): Promise<string[]> {
      const rows = await db
        .selectFrom("status_subscribers")
        .select("email")
        .where("confirmed_at", "is not", null)
        .orderBy("email")
        .execute();
      return rows.map((r) => r.email);
    },
  };
}

export type StatusRepository = ReturnType<typeof createStatusRepository>;
