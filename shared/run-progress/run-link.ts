// The queue dashboard links a job to its run's progress: a job's data carries the client's run id and
// its organisation, and /support/runs/<organisation>/<run_id>/ leads to that run's support page (under
// the supplier its writes named), where the progress line is.

/** Where the dashboard sends staff for a job's run: a path on the staff listener. */
function runProgressPath(organisationId: number, runId: string): string {
  return `/support/runs/${organisationId}/${encodeURIComponent(runId)}/`;
}

/** A job's (already redacted) data with the link to its run's progress, when it names a run. */
export function withRunLink(data: unknown): unknown {
  if (typeof data !== 'object' || data === null || Array.isArray(data)) return data;
  const { runId, organisationId } = data as { runId?: unknown; organisationId?: unknown };
  if (typeof runId !== 'string' || runId.length > 64 || !Number.isSafeInteger(organisationId)) return data;
  return { ...data, runProgress: runProgressPath(organisationId as number, runId) };
}
