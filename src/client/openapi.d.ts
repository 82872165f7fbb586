// Generated from /openapi.json by openapi-typescript (npm run api:types). Do not edit by hand.
export interface paths {
    "/healthz": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Liveness: the process answers */
        get: operations["getHealth"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/readyz": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Readiness: actors restored and the database writable */
        get: operations["getReadiness"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/metrics": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Prometheus metrics */
        get: operations["getMetrics"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/office/replicas": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * List the live replicas
         * @description Every scheduler process on the database whose heartbeat has not expired, with the agents whose lease it holds.
         */
        get: operations["listReplicas"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/office/workspaces": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** List the workspaces */
        get: operations["listWorkspaces"];
        put?: never;
        /** Create a workspace */
        post: operations["createWorkspace"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/office/workspaces/{id}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Read a workspace */
        get: operations["getWorkspace"];
        put?: never;
        post?: never;
        /**
         * Delete a workspace
         * @description Only a workspace with no agent left: one that still has agents is a 409 naming them. It leaves the lists; its tasks and history stay for the record.
         */
        delete: operations["deleteWorkspace"];
        options?: never;
        head?: never;
        /** Change a workspace */
        patch: operations["updateWorkspace"];
        trace?: never;
    };
    "/api/office/projects": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** List projects */
        get: operations["listProjects"];
        put?: never;
        /** Create a project */
        post: operations["createProject"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/office/projects/{id}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Read a project */
        get: operations["getProject"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        /** Change a project */
        patch: operations["updateProject"];
        trace?: never;
    };
    "/api/office/agents": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** List agents */
        get: operations["listAgents"];
        put?: never;
        /**
         * Create an agent
         * @description Creating a `ceo` or `coordinator` agent also creates its "Coordinator heartbeat" routine.
         */
        post: operations["createAgent"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/office/agents/{id}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Read an agent, with its live actor */
        get: operations["getAgent"];
        put?: never;
        post?: never;
        /**
         * Delete an agent
         * @description Its queued and scheduled wakeups end cancelled, its open tasks are unassigned and its routines are paused.
         */
        delete: operations["deleteAgent"];
        options?: never;
        head?: never;
        /** Change, pause or resume an agent */
        patch: operations["updateAgent"];
        trace?: never;
    };
    "/api/office/agents/{id}/wake": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Wake an agent
         * @description With `delay_sec` (seconds, at most 30 days) or `at` (an ISO time within 30 days), the wakeup is queued now and runs no earlier than then (its `available_at`). A run token may wake only its own agent.
         */
        post: operations["wakeAgent"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/office/agents/{id}/summaries": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** List an agent's continuation summaries */
        get: operations["listAgentSummaries"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/office/tasks": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * List tasks
         * @description Heavy routine tasks are left out unless `include_routine=true`.
         */
        get: operations["listTasks"];
        put?: never;
        /**
         * Create a task
         * @description A run token may create only subtasks (`parent_id`) in its own workspace, without an executor.
         */
        post: operations["createTask"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/office/tasks/{id}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Read a task */
        get: operations["getTask"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        /** Change a task (title, description, assignee, blockers) */
        patch: operations["updateTask"];
        trace?: never;
    };
    "/api/office/tasks/{id}/move": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Move a task on the board
         * @description Moving a `requires_approval` task to DONE puts it in IN_REVIEW and creates an approval instead.
         */
        post: operations["moveTask"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/office/tasks/{id}/comments": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** List a task's comments */
        get: operations["listComments"];
        put?: never;
        /** Comment on a task */
        post: operations["createComment"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/office/approvals": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** Request an approval */
        post: operations["createApproval"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/office/approvals/{id}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Read an approval */
        get: operations["getApproval"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/office/approvals/{id}/resolve": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Approve or reject
         * @description Resolving a task's approval moves the task: `approved` to DONE, `rejected` to IN_PROGRESS.
         */
        post: operations["resolveApproval"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/office/budgets": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** List budgets, each with its spend in the current period */
        get: operations["listBudgets"];
        put?: never;
        /** Create a budget */
        post: operations["createBudget"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/office/budgets/{id}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        post?: never;
        /**
         * Delete a budget
         * @description Its limit no longer applies; what runs spent stays counted for any other budget of the scope.
         */
        delete: operations["deleteBudget"];
        options?: never;
        head?: never;
        /** Change a budget's limit, period, action or alert threshold */
        patch: operations["updateBudget"];
        trace?: never;
    };
    "/api/office/wakeups": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** List wakeups, each with why it is where it is */
        get: operations["listWakeups"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/office/wakeups/{id}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Read a wakeup with its explanation and its decisions */
        get: operations["explainWakeup"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/office/runs": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** List runs */
        get: operations["listRuns"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/office/runs/{id}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Read a run
         * @description A run token may read only its own agent's runs.
         */
        get: operations["getRun"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/office/runs/{id}/transcript": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * What a run's session printed, parsed into events
         * @description Answers while the run runs (at most half a second behind the event stream, which carries new events live as `transcript` items). A run keeps its last OFFICE_TRANSCRIPT_MAX_BYTES; past that `truncated` is true.
         */
        get: operations["getRunTranscript"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/office/quotas": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * The agent programs' shared quotas exhausted now
         * @description A quota is exhausted when a session's limit named its reset: until then no session starts for the agents whose executors share its key, and their wakeups stay queued with no retry spent. `?all=true` also lists the quotas that are not exhausted now but were, or that warned of a limit near.
         */
        get: operations["listQuotas"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/office/runs/{id}/cancel": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Stop a running run
         * @description Stops the session (a command's process group gets SIGTERM, then SIGKILL after OFFICE_SHUTDOWN_GRACE_MS; an HTTP agent's request is aborted). The run ends `cancelled` and its wakeup `cancelled` with `cancel_reason: "run_cancelled"`, not retried. A run that already ended is a 409. A member may cancel only the runs done on its behalf (`on_behalf_of`: its own manual fires, its routines' runs and their follow-on work) and the runs of routines it owns; an admin any run.
         */
        post: operations["cancelRun"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/office/activity": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** The activity feed */
        get: operations["listActivity"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/office/inbox": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Inbox items: agent errors and approvals awaiting a person
         * @description Newest first: every open item, and the newest 500 resolved ones, so that resolved items never crowd an open one out.
         */
        get: operations["listInbox"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/office/inbox/{id}/resolve": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Mark an inbox item (an agent error) as dealt with
         * @description An approval is decided with `POST /api/office/approvals/:id/resolve`, not here (409), and an item already resolved is a 409.
         */
        post: operations["resolveInboxItem"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/office/stats": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Wakeups by outcome and cost, per minute, hour or day
         * @description Every bucket of the range, zeros included, counted in SQL. A range over the bucket limit is a 400 naming `from`.
         */
        get: operations["getStats"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/office/stats/timeline": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * The runs of a range, for a timeline
         * @description Runs that had started and overlap the range (default: the last 24 hours), oldest start first, at most 2000.
         */
        get: operations["getRunTimeline"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/office/routines": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** List routines, each with its triggers and its last run */
        get: operations["listRoutines"];
        put?: never;
        /**
         * Create a routine with its triggers
         * @description A webhook trigger created without a secret gets a generated one, shown only in this response. The routine's `owner_id` is the id of the token that creates it (`"admin"` for OFFICE_API_TOKEN, or when no token is configured); only an admin may set `owner_id` in the body: a member that names any owner but itself gets a 403, and nothing is created.
         */
        post: operations["createRoutine"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/office/routines/{id}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Read a routine with its triggers and recent runs */
        get: operations["getRoutine"];
        put?: never;
        post?: never;
        /**
         * Archive a routine
         * @description The routine leaves the lists and its triggers stop; it can still be read, with `status: "archived"`, and its runs listed.
         */
        delete: operations["deleteRoutine"];
        options?: never;
        head?: never;
        /**
         * Change, pause or archive a routine
         * @description A member may change only the routines it owns (403 with the reason otherwise), and may not give one another owner. An admin may set `owner_id`: a routine paused because its owner's token was revoked (`paused_reason: "owner's token was revoked"`) resumes when an admin gives it a new owner, unless the same request sets `status`. Setting such a routine `active` without a new owner, or naming a revoked token as owner, is a 409.
         */
        patch: operations["updateRoutine"];
        trace?: never;
    };
    "/api/office/routines/{id}/runs": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** List a routine's runs, newest first */
        get: operations["listRoutineRuns"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/office/routines/{id}/fire": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Fire a routine by hand
         * @description The body may be left out. A required variable that is missing is a 400 naming it.
         */
        post: operations["fireRoutine"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/office/routines/{id}/triggers": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** Add a trigger to a routine */
        post: operations["createRoutineTrigger"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/office/routine-triggers/{id}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        post?: never;
        /** Remove a trigger */
        delete: operations["deleteRoutineTrigger"];
        options?: never;
        head?: never;
        /** Change a trigger */
        patch: operations["updateRoutineTrigger"];
        trace?: never;
    };
    "/api/office/routine-triggers/{id}/preview": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** The next fire times of a schedule trigger */
        get: operations["previewRoutineTrigger"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/office/tokens": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * List the API tokens, revoked ones too, without their secrets
         * @description Admin only: a member token gets a 403.
         */
        get: operations["listApiTokens"];
        put?: never;
        /**
         * Create a named API token with a role
         * @description Admin only: a member token gets a 403. The secret (`token`) is shown only in this response; the server keeps only its hash. Named tokens work whether or not OFFICE_API_TOKEN is set: a request that brings one acts as that token (a member stays a member), and a request with no token is the admin only when no OFFICE_API_TOKEN is set.
         */
        post: operations["createApiToken"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/office/tokens/{id}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        post?: never;
        /**
         * Revoke an API token
         * @description Admin only: a member token gets a 403. From then on the token is a 401. The active routines it owns are paused with `paused_reason: "owner's token was revoked"` (one routine_paused activity entry each) until an admin gives them a new owner with PATCH owner_id, which resumes them. The queued and scheduled wakeups done on its behalf end `cancelled` with `cancel_reason: "owner_revoked"`, and their running runs are stopped (run `status: "cancelled"`), each with an activity entry. Revoking a revoked token changes nothing.
         */
        delete: operations["revokeApiToken"];
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/routine-triggers/{public_id}/fire": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Deliver a webhook to a routine trigger
         * @description Authenticated with the trigger's own secret, by its signing mode: none, `bearer` (Authorization: Bearer <secret>) or `hmac_sha256` (X-Hub-Signature-256: sha256=<hex HMAC-SHA256(secret, raw body)>). The signature is checked on the raw body before it is parsed.
         */
        post: operations["fireRoutineWebhook"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/office/session": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Who is signed in
         * @description Needs no credential: without one (or with a session that ended) it answers `signed_in: false`, and the dashboard shows its sign-in form. A wrong bearer token is still a 401.
         */
        get: operations["getSession"];
        put?: never;
        /**
         * Sign in: exchange the bearer token for a session cookie
         * @description Send the API token (or a named token) as Authorization: Bearer. The answer sets an HttpOnly, SameSite=Strict cookie that the API and the event stream accept until it expires (OFFICE_SESSION_TTL_HOURS), the session is signed out, or the token is revoked. 409 when no OFFICE_API_TOKEN is set: there is nothing to sign in to.
         */
        post: operations["signIn"];
        /** Sign out: end this session and clear its cookie */
        delete: operations["signOut"];
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
}
export type webhooks = Record<string, never>;
export interface components {
    schemas: {
        ExecutorSpecInput: {
            /** @constant */
            kind: "command";
            command: string;
            args?: string[];
            cwd?: string;
            env?: {
                [key: string]: string;
            };
            timeout_sec?: number;
        } | {
            /** @constant */
            kind: "http";
            /** Format: uri */
            url: string;
            headers?: {
                [key: string]: string;
            };
            timeout_sec?: number;
        } | {
            /** @constant */
            kind: "function";
            name: string;
            timeout_sec?: number;
        } | {
            /** @constant */
            kind: "claude_code";
            /** @description The program to run; default `claude`, found on the session's PATH. */
            command?: string;
            /** @description Extra arguments, after the ones the scheduler chooses. */
            args?: string[];
            /** @description Passed with the program's own model flag. */
            model?: string;
            cwd?: string;
            env?: {
                [key: string]: string;
            };
            timeout_sec?: number;
            /** @description USD per million tokens. Cached input is priced at cached_input_per_mtok_usd, or at the input price when absent. */
            prices?: {
                input_per_mtok_usd: number;
                output_per_mtok_usd: number;
                cached_input_per_mtok_usd?: number;
            };
            /** @description Hand the scheduler's MCP server (/mcp, with the run token) to the program through its own MCP option (Claude Code, Codex; Gemini CLI has none for one session); default true. */
            mcp?: boolean;
        } | {
            /** @constant */
            kind: "codex";
            /** @description The program to run; default `codex`, found on the session's PATH. */
            command?: string;
            /** @description Extra arguments, after the ones the scheduler chooses. */
            args?: string[];
            /** @description Passed with the program's own model flag. */
            model?: string;
            cwd?: string;
            env?: {
                [key: string]: string;
            };
            timeout_sec?: number;
            /** @description USD per million tokens. Cached input is priced at cached_input_per_mtok_usd, or at the input price when absent. */
            prices?: {
                input_per_mtok_usd: number;
                output_per_mtok_usd: number;
                cached_input_per_mtok_usd?: number;
            };
            /** @description Hand the scheduler's MCP server (/mcp, with the run token) to the program through its own MCP option (Claude Code, Codex; Gemini CLI has none for one session); default true. */
            mcp?: boolean;
        } | {
            /** @constant */
            kind: "gemini_cli";
            /** @description The program to run; default `gemini`, found on the session's PATH. */
            command?: string;
            /** @description Extra arguments, after the ones the scheduler chooses. */
            args?: string[];
            /** @description Passed with the program's own model flag. */
            model?: string;
            cwd?: string;
            env?: {
                [key: string]: string;
            };
            timeout_sec?: number;
            /** @description USD per million tokens. Cached input is priced at cached_input_per_mtok_usd, or at the input price when absent. */
            prices?: {
                input_per_mtok_usd: number;
                output_per_mtok_usd: number;
                cached_input_per_mtok_usd?: number;
            };
            /** @description Hand the scheduler's MCP server (/mcp, with the run token) to the program through its own MCP option (Claude Code, Codex; Gemini CLI has none for one session); default true. */
            mcp?: boolean;
        };
        WakeupsPoint: {
            /**
             * Format: date-time
             * @description Start of the bucket.
             */
            starts_at: string;
            /** @description Wakeups that ended finished in the bucket. */
            finished: number;
            /** @description Wakeups that ended skipped in the bucket. */
            skipped: number;
            /** @description Wakeups that ended coalesced in the bucket. */
            coalesced: number;
            /** @description Wakeups that ended failed in the bucket. */
            failed: number;
            /** @description Wakeups that ended cancelled in the bucket. */
            cancelled: number;
        };
        CostPoint: {
            /**
             * Format: date-time
             * @description Start of the bucket.
             */
            starts_at: string;
            /** @description Sum of the costs runs reported in the bucket. */
            cost_usd: number;
            /** @description Runs that reported a cost in the bucket. */
            runs: number;
        };
        /** @description Wakeups by outcome and cost, per bucket, counted in SQL. */
        Stats: {
            workspace_id: string;
            agent_id: string | null;
            /** @enum {string} */
            bucket: "minute" | "hour" | "day";
            bucket_sec: number;
            /**
             * Format: date-time
             * @description Start of the first bucket.
             */
            from: string;
            /**
             * Format: date-time
             * @description End of the range, exclusive.
             */
            to: string;
            /** @description Every bucket of the range, oldest first, with the wakeups that ended in it by outcome. */
            wakeups: components["schemas"]["WakeupsPoint"][];
            /** @description Every bucket of the range, oldest first, with the cost reported in it. */
            cost: components["schemas"]["CostPoint"][];
        };
        RunSpan: {
            id: string;
            agent_id: string;
            /** @enum {string} */
            status: "queued" | "running" | "succeeded" | "failed" | "interrupted" | "cancelled";
            /**
             * Format: date-time
             * @description ISO-8601 UTC
             */
            started_at: string;
            /** @description Null while it runs. */
            finished_at: string | null;
        };
        /** @description The runs of a range, one bar each, for a timeline. */
        Timeline: {
            workspace_id: string;
            agent_id: string | null;
            /**
             * Format: date-time
             * @description ISO-8601 UTC
             */
            from: string;
            /**
             * Format: date-time
             * @description ISO-8601 UTC
             */
            to: string;
            /** @description Runs that had started and overlap the range, oldest start first, at most 2000. */
            runs: components["schemas"]["RunSpan"][];
            /** @description True when more than 2000 runs overlap the range: narrow it to see the rest. */
            truncated: boolean;
        };
        ExecutorSpec: {
            /** @constant */
            kind: "command";
            command: string;
            args?: string[];
            cwd?: string;
            env?: {
                [key: string]: string;
            };
            timeout_sec?: number;
        } | {
            /** @constant */
            kind: "http";
            /** Format: uri */
            url: string;
            headers?: {
                [key: string]: string;
            };
            timeout_sec?: number;
        } | {
            /** @constant */
            kind: "function";
            name: string;
            timeout_sec?: number;
        } | {
            /** @constant */
            kind: "claude_code";
            /** @description The program to run; default `claude`, found on the session's PATH. */
            command?: string;
            /** @description Extra arguments, after the ones the scheduler chooses. */
            args?: string[];
            /** @description Passed with the program's own model flag. */
            model?: string;
            cwd?: string;
            env?: {
                [key: string]: string;
            };
            timeout_sec?: number;
            /** @description USD per million tokens. Cached input is priced at cached_input_per_mtok_usd, or at the input price when absent. */
            prices?: {
                input_per_mtok_usd: number;
                output_per_mtok_usd: number;
                cached_input_per_mtok_usd?: number;
            };
            /** @description Hand the scheduler's MCP server (/mcp, with the run token) to the program through its own MCP option (Claude Code, Codex; Gemini CLI has none for one session); default true. */
            mcp?: boolean;
        } | {
            /** @constant */
            kind: "codex";
            /** @description The program to run; default `codex`, found on the session's PATH. */
            command?: string;
            /** @description Extra arguments, after the ones the scheduler chooses. */
            args?: string[];
            /** @description Passed with the program's own model flag. */
            model?: string;
            cwd?: string;
            env?: {
                [key: string]: string;
            };
            timeout_sec?: number;
            /** @description USD per million tokens. Cached input is priced at cached_input_per_mtok_usd, or at the input price when absent. */
            prices?: {
                input_per_mtok_usd: number;
                output_per_mtok_usd: number;
                cached_input_per_mtok_usd?: number;
            };
            /** @description Hand the scheduler's MCP server (/mcp, with the run token) to the program through its own MCP option (Claude Code, Codex; Gemini CLI has none for one session); default true. */
            mcp?: boolean;
        } | {
            /** @constant */
            kind: "gemini_cli";
            /** @description The program to run; default `gemini`, found on the session's PATH. */
            command?: string;
            /** @description Extra arguments, after the ones the scheduler chooses. */
            args?: string[];
            /** @description Passed with the program's own model flag. */
            model?: string;
            cwd?: string;
            env?: {
                [key: string]: string;
            };
            timeout_sec?: number;
            /** @description USD per million tokens. Cached input is priced at cached_input_per_mtok_usd, or at the input price when absent. */
            prices?: {
                input_per_mtok_usd: number;
                output_per_mtok_usd: number;
                cached_input_per_mtok_usd?: number;
            };
            /** @description Hand the scheduler's MCP server (/mcp, with the run token) to the program through its own MCP option (Claude Code, Codex; Gemini CLI has none for one session); default true. */
            mcp?: boolean;
        };
        /** @description Every error status answers with this envelope. */
        Error: {
            error: {
                /** @description A stable code to branch on: validation_error, bad_request, unauthorized, forbidden, not_found, conflict, payload_too_large, unsupported_media_type, misdirected_request, storage_unavailable, not_ready, internal_error. */
                code: string;
                message: string;
                /** @description For validation_error: one entry per offending field. */
                details?: unknown[];
            };
        };
        Workspace: {
            id: string;
            name: string;
            timezone: string;
            recovery_lookback_hours: number;
            default_executor: components["schemas"]["ExecutorSpec"] | null;
            /**
             * Format: date-time
             * @description ISO-8601 UTC
             */
            created_at: string;
            /**
             * Format: date-time
             * @description ISO-8601 UTC
             */
            updated_at: string;
        };
        Project: {
            id: string;
            workspace_id: string;
            name: string;
            default_executor: components["schemas"]["ExecutorSpec"] | null;
            /**
             * Format: date-time
             * @description ISO-8601 UTC
             */
            created_at: string;
            /**
             * Format: date-time
             * @description ISO-8601 UTC
             */
            updated_at: string;
        };
        /** @description The live actor's view of an agent: from this process, or the owning replica's last stored snapshot. */
        AgentActor: {
            /** @description The live actor's state, e.g. `idle`, `cooldown`, `running`. */
            state: string;
            queued: number;
            running: number;
            max_concurrent_sessions: number;
            cooldown_until: string | null;
            next_available_at: string | null;
            /** @description While its program's shared quota is exhausted: when this agent may start again (the reset, the buffer and its share of the spread). */
            quota_held_until?: string | null;
            /** @description The replica whose process runs the actor (it holds the agent's lease), or null while none holds it. */
            replica: string | null;
        };
        Agent: {
            id: string;
            workspace_id: string;
            name: string;
            /** @enum {string} */
            role: "ceo" | "coordinator" | "worker" | "specialist" | "assistant";
            /** @enum {string} */
            status: "idle" | "working" | "paused" | "stopped";
            paused_reason: string | null;
            skip_idle_wakeups: boolean;
            max_concurrent_sessions: number;
            cooldown_sec: number;
            last_wakeup_finished_at: string | null;
            executor: components["schemas"]["ExecutorSpec"] | null;
            daily_run_cap: number | null;
            daily_cost_cap_usd: number | null;
            max_concurrent_routine_runs: number | null;
            warnings: string[];
            deleted_at: string | null;
            /**
             * Format: date-time
             * @description ISO-8601 UTC
             */
            created_at: string;
            /**
             * Format: date-time
             * @description ISO-8601 UTC
             */
            updated_at: string;
            /** @description Null while no actor runs for the agent (stopped, or not restored yet). */
            actor: components["schemas"]["AgentActor"] | null;
        };
        Task: {
            id: string;
            workspace_id: string;
            project_id: string | null;
            parent_id: string | null;
            title: string;
            description: string;
            /** @enum {string} */
            state: "TODO" | "IN_PROGRESS" | "IN_REVIEW" | "DONE" | "CANCELLED" | "BLOCKED" | "ARCHIVED";
            assignee_agent_instance_id: string | null;
            requires_approval: boolean;
            executor: components["schemas"]["ExecutorSpec"] | null;
            /** @enum {string} */
            workflow: "office" | "routine";
            /** @enum {string} */
            origin: "user" | "agent" | "routine";
            origin_id: string | null;
            checkout_agent_id: string | null;
            checkout_wakeup_id: string | null;
            checkout_at: string | null;
            assigned_at: string | null;
            archived_at: string | null;
            completed_at: string | null;
            /**
             * Format: date-time
             * @description ISO-8601 UTC
             */
            created_at: string;
            /**
             * Format: date-time
             * @description ISO-8601 UTC
             */
            updated_at: string;
            /** @description Made by unattended work: a cron or webhook fire, or the follow-on work of its runs. */
            unattended: boolean;
            /** @description The routine owner that unattended work was done for; null when attended. */
            on_behalf_of: string | null;
            blocked_by: string[];
            reviewers: string[];
        };
        Comment: {
            id: string;
            workspace_id: string;
            task_id: string;
            /** @enum {string} */
            author_type: "user" | "agent";
            author_id: string;
            body: string;
            /**
             * Format: date-time
             * @description ISO-8601 UTC
             */
            created_at: string;
        };
        Approval: {
            id: string;
            workspace_id: string;
            task_id: string | null;
            requested_by_agent_id: string;
            title: string;
            /** @enum {string} */
            status: "pending" | "approved" | "rejected";
            decision_note: string | null;
            /**
             * Format: date-time
             * @description ISO-8601 UTC
             */
            created_at: string;
            resolved_at: string | null;
        };
        Budget: {
            id: string;
            workspace_id: string;
            /** @enum {string} */
            scope: "workspace" | "project" | "agent";
            scope_id: string;
            limit_usd: number;
            /** @enum {string} */
            period: "daily" | "monthly" | "total";
            /** @enum {string} */
            action_on_exceed: "pause_agent" | "warn";
            alert_threshold_pct: number | null;
            /**
             * Format: date-time
             * @description ISO-8601 UTC
             */
            created_at: string;
        };
        BudgetWithSpend: {
            id: string;
            workspace_id: string;
            /** @enum {string} */
            scope: "workspace" | "project" | "agent";
            scope_id: string;
            limit_usd: number;
            /** @enum {string} */
            period: "daily" | "monthly" | "total";
            /** @enum {string} */
            action_on_exceed: "pause_agent" | "warn";
            alert_threshold_pct: number | null;
            /**
             * Format: date-time
             * @description ISO-8601 UTC
             */
            created_at: string;
            /** @description The cost that runs reported in the current period. */
            spent_usd: number;
            /** @description When the current period began (UTC); null for a `total` budget. */
            period_started_at: string | null;
        };
        RoutineRun: {
            id: string;
            routine_id: string;
            trigger_id: string | null;
            /** @enum {string} */
            source: "cron" | "webhook" | "manual";
            /** @enum {string} */
            status: "received" | "task_created" | "dispatched" | "skipped" | "coalesced" | "failed";
            skip_reason: string | null;
            trigger_payload: {
                [key: string]: unknown;
            };
            linked_task_id: string | null;
            linked_wakeup_id: string | null;
            coalesced_into_run_id: string | null;
            dispatch_fingerprint: string;
            /** @description The cron tick this run fires, or null. */
            scheduled_for: string | null;
            delivery_id: string | null;
            /** @description Null while the run's work has not ended. */
            outcome: ("succeeded" | "failed" | "interrupted" | "cancelled") | null;
            /**
             * @description The result delivery: `pending` while it is retried, then `delivered` or `failed` (gave up); `none` without one.
             * @enum {string}
             */
            delivery_status: "none" | "pending" | "delivered" | "failed";
            error: string | null;
            unattended: boolean;
            on_behalf_of: string | null;
            /**
             * Format: date-time
             * @description ISO-8601 UTC
             */
            started_at: string;
            completed_at: string | null;
        };
        RoutineTrigger: {
            id: string;
            routine_id: string;
            /** @enum {string} */
            kind: "schedule" | "webhook" | "manual";
            cron_expression: string | null;
            timezone: string | null;
            next_run_at: string | null;
            last_fired_at: string | null;
            public_id: string | null;
            signing_mode: ("none" | "bearer" | "hmac_sha256") | null;
            enabled: boolean;
            /**
             * Format: date-time
             * @description ISO-8601 UTC
             */
            created_at: string;
            /**
             * Format: date-time
             * @description ISO-8601 UTC
             */
            updated_at: string;
            /** @description Webhook triggers: the path to POST deliveries to. */
            url?: string;
            /** @description Webhook triggers: whether a secret is set. */
            has_secret?: boolean;
            /** @description Shown once, in the response that created the trigger. */
            secret?: string;
        };
        Routine: {
            id: string;
            workspace_id: string;
            name: string;
            description: string;
            assignee_agent_instance_id: string;
            owner_id: string;
            /** @enum {string} */
            status: "active" | "paused" | "archived";
            paused_reason: string | null;
            /** @enum {string} */
            concurrency_policy: "coalesce_if_active" | "skip_if_active" | "always_enqueue";
            /** @enum {string} */
            catch_up_policy: "enqueue_missed_with_cap" | "skip_missed";
            catch_up_max: number;
            /** @description Null for a lightweight routine, which wakes its agent without a task. */
            task_template: {
                title: string;
                description?: string;
            } | null;
            variables: {
                name: string;
                /** @enum {string} */
                type: "text" | "number" | "boolean" | "select";
                default?: string | number | boolean | null;
                /** @default false */
                required: boolean;
                options?: string[];
                description?: string;
            }[];
            priority: number;
            jitter_sec: number;
            delivery: {
                /** @constant */
                kind: "webhook";
                url: string;
            } | null;
            consecutive_failures: number;
            consecutive_failure_limit: number;
            carried_missed_ticks: {
                count: number;
                /** @description epoch milliseconds */
                since: number;
            } | null;
            /**
             * Format: date-time
             * @description ISO-8601 UTC
             */
            created_at: string;
            /**
             * Format: date-time
             * @description ISO-8601 UTC
             */
            updated_at: string;
            triggers: components["schemas"]["RoutineTrigger"][];
            /** @description Newest first. */
            recent_runs: components["schemas"]["RoutineRun"][];
        };
        RoutineListItem: {
            id: string;
            workspace_id: string;
            name: string;
            description: string;
            assignee_agent_instance_id: string;
            owner_id: string;
            /** @enum {string} */
            status: "active" | "paused" | "archived";
            paused_reason: string | null;
            /** @enum {string} */
            concurrency_policy: "coalesce_if_active" | "skip_if_active" | "always_enqueue";
            /** @enum {string} */
            catch_up_policy: "enqueue_missed_with_cap" | "skip_missed";
            catch_up_max: number;
            /** @description Null for a lightweight routine, which wakes its agent without a task. */
            task_template: {
                title: string;
                description?: string;
            } | null;
            variables: {
                name: string;
                /** @enum {string} */
                type: "text" | "number" | "boolean" | "select";
                default?: string | number | boolean | null;
                /** @default false */
                required: boolean;
                options?: string[];
                description?: string;
            }[];
            priority: number;
            jitter_sec: number;
            delivery: {
                /** @constant */
                kind: "webhook";
                url: string;
            } | null;
            consecutive_failures: number;
            consecutive_failure_limit: number;
            carried_missed_ticks: {
                count: number;
                /** @description epoch milliseconds */
                since: number;
            } | null;
            /**
             * Format: date-time
             * @description ISO-8601 UTC
             */
            created_at: string;
            /**
             * Format: date-time
             * @description ISO-8601 UTC
             */
            updated_at: string;
            triggers: components["schemas"]["RoutineTrigger"][];
            last_run: components["schemas"]["RoutineRun"] | null;
        };
        TriggerPreview: {
            trigger_id: string;
            timezone: string | null;
            next_fire_times: string[];
        };
        ActivityEntry: {
            id: number;
            workspace_id: string;
            code: string;
            agent_id: string | null;
            task_id: string | null;
            wakeup_id: string | null;
            run_id: string | null;
            routine_id: string | null;
            /** @enum {string} */
            actor_type: "system" | "user" | "agent" | "routine";
            actor_id: string | null;
            /** @description Caused by a cron or webhook fire, or by the follow-on work of its runs. */
            unattended: boolean;
            /** @description The routine owner the work was done for (the firing person for a manual fire); null for attended work. */
            on_behalf_of: string | null;
            message: string;
            details: {
                [key: string]: unknown;
            };
            /**
             * Format: date-time
             * @description ISO-8601 UTC
             */
            created_at: string;
        };
        WakeupRecord: {
            id: string;
            workspace_id: string;
            agent_id: string;
            /** @enum {string} */
            source: "routine" | "comment" | "agent_error" | "self" | "user" | "task_assigned" | "task_blockers_resolved" | "task_children_completed" | "approval_resolved" | "budget_alert";
            reason: string;
            payload: {
                [key: string]: unknown;
            };
            task_id: string | null;
            /** @enum {string} */
            status: "queued" | "claimed" | "coalesced" | "skipped" | "finished" | "failed" | "cancelled" | "scheduled_retry";
            cancel_reason: string | null;
            skip_reason: string | null;
            coalesced_count: number;
            coalesced_into_id: string | null;
            idempotency_key: string | null;
            retry_count: number;
            scheduled_retry_at: string | null;
            /**
             * Format: date-time
             * @description ISO-8601 UTC
             */
            available_at: string;
            context_snapshot: {
                [key: string]: unknown;
            };
            run_id: string | null;
            routine_run_id: string | null;
            /** @description While queued behind another run's checkout of its task: the wakeup that holds the task. */
            waiting_on_checkout: string | null;
            recovered: boolean;
            error: string | null;
            /**
             * Format: date-time
             * @description ISO-8601 UTC
             */
            requested_at: string;
            claimed_at: string | null;
            finished_at: string | null;
            /** @description Caused by unattended work; its run inherits it. */
            unattended: boolean;
            on_behalf_of: string | null;
        };
        Wakeup: {
            id: string;
            workspace_id: string;
            agent_id: string;
            /** @enum {string} */
            source: "routine" | "comment" | "agent_error" | "self" | "user" | "task_assigned" | "task_blockers_resolved" | "task_children_completed" | "approval_resolved" | "budget_alert";
            reason: string;
            payload: {
                [key: string]: unknown;
            };
            task_id: string | null;
            /** @enum {string} */
            status: "queued" | "claimed" | "coalesced" | "skipped" | "finished" | "failed" | "cancelled" | "scheduled_retry";
            cancel_reason: string | null;
            skip_reason: string | null;
            coalesced_count: number;
            coalesced_into_id: string | null;
            idempotency_key: string | null;
            retry_count: number;
            scheduled_retry_at: string | null;
            /**
             * Format: date-time
             * @description ISO-8601 UTC
             */
            available_at: string;
            context_snapshot: {
                [key: string]: unknown;
            };
            run_id: string | null;
            routine_run_id: string | null;
            /** @description While queued behind another run's checkout of its task: the wakeup that holds the task. */
            waiting_on_checkout: string | null;
            recovered: boolean;
            error: string | null;
            /**
             * Format: date-time
             * @description ISO-8601 UTC
             */
            requested_at: string;
            claimed_at: string | null;
            finished_at: string | null;
            /** @description Caused by unattended work; its run inherits it. */
            unattended: boolean;
            on_behalf_of: string | null;
            /** @description Why the wakeup is where it is, in one sentence. */
            explain: string;
        };
        WakeupDetail: {
            id: string;
            workspace_id: string;
            agent_id: string;
            /** @enum {string} */
            source: "routine" | "comment" | "agent_error" | "self" | "user" | "task_assigned" | "task_blockers_resolved" | "task_children_completed" | "approval_resolved" | "budget_alert";
            reason: string;
            payload: {
                [key: string]: unknown;
            };
            task_id: string | null;
            /** @enum {string} */
            status: "queued" | "claimed" | "coalesced" | "skipped" | "finished" | "failed" | "cancelled" | "scheduled_retry";
            cancel_reason: string | null;
            skip_reason: string | null;
            coalesced_count: number;
            coalesced_into_id: string | null;
            idempotency_key: string | null;
            retry_count: number;
            scheduled_retry_at: string | null;
            /**
             * Format: date-time
             * @description ISO-8601 UTC
             */
            available_at: string;
            context_snapshot: {
                [key: string]: unknown;
            };
            run_id: string | null;
            routine_run_id: string | null;
            /** @description While queued behind another run's checkout of its task: the wakeup that holds the task. */
            waiting_on_checkout: string | null;
            recovered: boolean;
            error: string | null;
            /**
             * Format: date-time
             * @description ISO-8601 UTC
             */
            requested_at: string;
            claimed_at: string | null;
            finished_at: string | null;
            /** @description Caused by unattended work; its run inherits it. */
            unattended: boolean;
            on_behalf_of: string | null;
            /** @description Why the wakeup is where it is, in one sentence. */
            explain: string;
            /** @description Its decisions, newest first. */
            activity: components["schemas"]["ActivityEntry"][];
        };
        WakeResponse: {
            wakeup: components["schemas"]["WakeupRecord"];
            /**
             * @description `duplicate`: a repeat within the idempotency window, answered with the first wakeup (status 200). `refused`: an agent's wake during an unattended run, at a routine-run cap (the wakeup is `skipped`, `cap_reached`).
             * @enum {string}
             */
            outcome: "queued" | "duplicate" | "coalesced" | "merged_into_run" | "refused";
        };
        RoutineRunResponse: {
            routine_run: components["schemas"]["RoutineRun"];
        };
        Usage: {
            /** @description Every input token, the cached ones included. */
            input_tokens: number;
            output_tokens: number;
            /** @description The part of the input served from a cache. */
            cached_input_tokens: number;
        };
        Run: {
            id: string;
            wakeup_id: string;
            workspace_id: string;
            agent_id: string;
            task_id: string | null;
            routine_id: string | null;
            attempt: number;
            /** @enum {string} */
            status: "queued" | "running" | "succeeded" | "failed" | "interrupted" | "cancelled";
            executor_kind: string | null;
            session_key: string | null;
            idempotency_key: string | null;
            context_snapshot: {
                [key: string]: unknown;
            };
            assembled_prompt: string;
            summary_injected: string;
            result_json: {
                [key: string]: unknown;
            };
            error: string | null;
            /** @description The cost the session reported, or computed from its usage at the executor's `prices`; null says why in `cost_note`. */
            cost_usd: number | null;
            usage?: components["schemas"]["Usage"] | null;
            /** @description Why `cost_usd` is null, or how it was computed. */
            cost_note?: string | null;
            /** @description The agent program's own session or thread id; the next run of the agent on the task resumes it. */
            cli_session_id?: string | null;
            /** @description The running totals the program reported for its session by the end of this run; a run that resumes the session records the difference. */
            cli_session_totals?: {
                cost_usd?: number;
                usage?: components["schemas"]["Usage"];
            } | null;
            /** @description The transcript keeps only the last OFFICE_TRANSCRIPT_MAX_BYTES. */
            transcript_truncated?: boolean;
            made_progress?: boolean | null;
            session_pid?: number | null;
            session_pgid?: number | null;
            session_start_time?: string | null;
            /** @description A result that arrived after the replica running the session lost the agent (its finish was fenced out): kept for inspection, never the run's outcome. Null otherwise. */
            late_result_json?: {
                [key: string]: unknown;
            } | null;
            unattended: boolean;
            on_behalf_of: string | null;
            /**
             * Format: date-time
             * @description ISO-8601 UTC
             */
            created_at: string;
            started_at: string | null;
            finished_at: string | null;
        };
        TranscriptEvent: {
            seq: number;
            /**
             * Format: date-time
             * @description ISO-8601 UTC
             */
            at: string;
            /** @enum {string} */
            stream: "stdout" | "stderr";
            /** @description The program's event type (Claude Code's `assistant`, Codex's `item.completed`, …), or `line` for plain output. */
            type: string;
            /** @description The event's text where it has one (an assistant message, a tool call), the raw line otherwise. */
            text: string;
        };
        Transcript: {
            run_id: string;
            workspace_id: string;
            agent_id: string;
            events: components["schemas"]["TranscriptEvent"][];
            /** @description The run keeps only its last OFFICE_TRANSCRIPT_MAX_BYTES; earlier events were dropped. */
            truncated: boolean;
        };
        Quota: {
            /** @description The executor kind and a hash of the credential and endpoint variables its sessions see (`claude_code:default` when none is set). */
            key: string;
            kind: string;
            /** @description The reset the program named (before OFFICE_RATE_LIMIT_BUFFER_SEC); null when not exhausted. */
            exhausted_until: string | null;
            /** @description When the agents it holds start: the reset plus the buffer (each agent then its share of OFFICE_QUOTA_RELEASE_SPREAD_SEC). */
            release_at: string | null;
            /** @description The limit message that exhausted it. */
            reason: string | null;
            /** @description The agents whose executors have this key. */
            agents: string[];
            /** @description What the program last said about a limit that is near (not a failure). */
            warning: string | null;
            warned_at: string | null;
        };
        InboxItem: {
            id: string;
            workspace_id: string;
            /** @description e.g. `agent.error`, `approval`. */
            kind: string;
            title: string;
            body: string;
            agent_id: string | null;
            task_id: string | null;
            ref_id: string | null;
            /** @enum {string} */
            status: "open" | "resolved";
            /**
             * Format: date-time
             * @description ISO-8601 UTC
             */
            created_at: string;
        };
        ContinuationSummary: {
            agent_profile_id: string;
            scope: string;
            content: string;
            content_tokens: number;
            /**
             * Format: date-time
             * @description ISO-8601 UTC
             */
            updated_at: string;
            updated_by_run_id: string;
        };
        /** @description A live scheduler process on the database. */
        Replica: {
            /** @description OFFICE_REPLICA_ID (default: host name and pid). */
            id: string;
            /**
             * Format: date-time
             * @description ISO-8601 UTC
             */
            started_at: string;
            /**
             * Format: date-time
             * @description Its last heartbeat, which renewed its agent leases.
             */
            heartbeat_at: string;
            /** @description When its registration and leases run out unless it heartbeats again (it heartbeats three times a lease); null with SQLite, whose one process holds the database as long as it runs. */
            expires_at: string | null;
            /** @description Agents whose unexpired lease it holds. */
            agents_owned: number;
        };
        Health: {
            /** @enum {string} */
            status: "ok" | "ready";
        };
        ApiToken: {
            /** @description What a routine's owner_id records for the routines this token creates. */
            id: string;
            name: string;
            /** @enum {string} */
            role: "admin" | "member";
            /**
             * Format: date-time
             * @description ISO-8601 UTC
             */
            created_at: string;
            revoked_at: string | null;
        };
        CreatedApiToken: {
            /** @description What a routine's owner_id records for the routines this token creates. */
            id: string;
            name: string;
            /** @enum {string} */
            role: "admin" | "member";
            /**
             * Format: date-time
             * @description ISO-8601 UTC
             */
            created_at: string;
            /** @description The secret, for Authorization: Bearer. Shown only in this response: only its hash is stored. */
            token: string;
        };
        /** @description Who the caller is, and how it signed in. */
        Session: {
            /** @description False only where OFFICE_API_TOKEN is set and this request brought no valid credential: the dashboard shows its sign-in form. */
            signed_in: boolean;
            /** @description The token this caller acts as: "admin" for OFFICE_API_TOKEN (and for every local caller when none is set), or a named token's id. */
            token_id: string | null;
            role: ("admin" | "member") | null;
            /** @description How this request was authenticated: the session cookie, a bearer token, or nothing needed (no OFFICE_API_TOKEN is set). */
            via: ("session" | "token" | "open") | null;
            /** @description When the session ends; null when the request did not come through a session. */
            expires_at: string | null;
        };
    };
    responses: never;
    parameters: never;
    requestBodies: never;
    headers: never;
    pathItems: never;
}
export type $defs = Record<string, never>;
export interface operations {
    getHealth: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description OK */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Health"];
                };
            };
            /** @description The Host header names a host this server does not serve (OFFICE_ALLOWED_HOSTS). */
            421: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    getReadiness: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description OK */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Health"];
                };
            };
            /** @description The Host header names a host this server does not serve (OFFICE_ALLOWED_HOSTS). */
            421: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The database cannot be written (storage_unavailable); retry after the Retry-After header. */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    getMetrics: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Prometheus text exposition format 0.0.4. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "text/plain": string;
                };
            };
            /** @description The Host header names a host this server does not serve (OFFICE_ALLOWED_HOSTS). */
            421: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    listReplicas: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description OK */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Replica"][];
                };
            };
            /** @description Invalid input (validation_error), naming the offending field. */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Missing or invalid bearer token (or, for a webhook, a bad or missing signature). */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description A run token may not do this, a member may not (an admin's act, or any executor in a body), or an owner rule forbids it. */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The Host header names a host this server does not serve (OFFICE_ALLOWED_HOSTS). */
            421: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description An internal fault (internal_error); the server log has the details. Bad input never answers 500. */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    listWorkspaces: {
        parameters: {
            query?: {
                /** @description How many rows a page holds: 1..1000, 1000 when absent. */
                limit?: number;
                /** @description Where the page starts: the `next-cursor` header of the previous page, as it came. Absent: the first page. */
                cursor?: string;
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description OK */
            200: {
                headers: {
                    /** @description Where the next page starts: pass it as `?cursor=` (with the same filters). Absent on the last page. */
                    "next-cursor"?: string;
                    /** @description The next page as a link: `<path?…&cursor=…>; rel="next"`. Absent on the last page. */
                    link?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Workspace"][];
                };
            };
            /** @description Invalid input (validation_error), naming the offending field. */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Missing or invalid bearer token (or, for a webhook, a bad or missing signature). */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description A run token may not do this, a member may not (an admin's act, or any executor in a body), or an owner rule forbids it. */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The Host header names a host this server does not serve (OFFICE_ALLOWED_HOSTS). */
            421: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description An internal fault (internal_error); the server log has the details. Bad input never answers 500. */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    createWorkspace: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    name: string;
                    timezone?: string;
                    recovery_lookback_hours?: number;
                    default_executor?: components["schemas"]["ExecutorSpecInput"] | null;
                };
            };
        };
        responses: {
            /** @description Created */
            201: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Workspace"];
                };
            };
            /** @description Invalid input (validation_error), naming the offending field. */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Missing or invalid bearer token (or, for a webhook, a bad or missing signature). */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description A run token may not do this, a member may not (an admin's act, or any executor in a body), or an owner rule forbids it. */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description An id names nothing. */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The request conflicts with the resource's state. */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The body is over the size limit (OFFICE_BODY_LIMIT_BYTES, default 1 MiB). */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The body is not JSON. */
            415: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The Host header names a host this server does not serve (OFFICE_ALLOWED_HOSTS). */
            421: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description An internal fault (internal_error); the server log has the details. Bad input never answers 500. */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The database cannot be written (storage_unavailable); retry after the Retry-After header. */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    getWorkspace: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description OK */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Workspace"];
                };
            };
            /** @description Invalid input (validation_error), naming the offending field. */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Missing or invalid bearer token (or, for a webhook, a bad or missing signature). */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description A run token may not do this, a member may not (an admin's act, or any executor in a body), or an owner rule forbids it. */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description An id names nothing. */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description A path parameter is longer than the router accepts (256 characters); such a path may also answer 404. */
            414: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The Host header names a host this server does not serve (OFFICE_ALLOWED_HOSTS). */
            421: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description An internal fault (internal_error); the server log has the details. Bad input never answers 500. */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    deleteWorkspace: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Done; no content. */
            204: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
            /** @description Invalid input (validation_error), naming the offending field. */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Missing or invalid bearer token (or, for a webhook, a bad or missing signature). */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description A run token may not do this, a member may not (an admin's act, or any executor in a body), or an owner rule forbids it. */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description An id names nothing. */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The request conflicts with the resource's state. */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The body is over the size limit (OFFICE_BODY_LIMIT_BYTES, default 1 MiB). */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description A path parameter is longer than the router accepts (256 characters); such a path may also answer 404. */
            414: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The body is not JSON. */
            415: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The Host header names a host this server does not serve (OFFICE_ALLOWED_HOSTS). */
            421: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description An internal fault (internal_error); the server log has the details. Bad input never answers 500. */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The database cannot be written (storage_unavailable); retry after the Retry-After header. */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    updateWorkspace: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                id: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    name?: string;
                    timezone?: string;
                    recovery_lookback_hours?: number;
                    default_executor?: components["schemas"]["ExecutorSpecInput"] | null;
                };
            };
        };
        responses: {
            /** @description OK */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Workspace"];
                };
            };
            /** @description Invalid input (validation_error), naming the offending field. */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Missing or invalid bearer token (or, for a webhook, a bad or missing signature). */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description A run token may not do this, a member may not (an admin's act, or any executor in a body), or an owner rule forbids it. */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description An id names nothing. */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The request conflicts with the resource's state. */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The body is over the size limit (OFFICE_BODY_LIMIT_BYTES, default 1 MiB). */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description A path parameter is longer than the router accepts (256 characters); such a path may also answer 404. */
            414: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The body is not JSON. */
            415: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The Host header names a host this server does not serve (OFFICE_ALLOWED_HOSTS). */
            421: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description An internal fault (internal_error); the server log has the details. Bad input never answers 500. */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The database cannot be written (storage_unavailable); retry after the Retry-After header. */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    listProjects: {
        parameters: {
            query?: {
                workspace_id?: string;
                /** @description How many rows a page holds: 1..1000, 1000 when absent. */
                limit?: number;
                /** @description Where the page starts: the `next-cursor` header of the previous page, as it came. Absent: the first page. */
                cursor?: string;
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description OK */
            200: {
                headers: {
                    /** @description Where the next page starts: pass it as `?cursor=` (with the same filters). Absent on the last page. */
                    "next-cursor"?: string;
                    /** @description The next page as a link: `<path?…&cursor=…>; rel="next"`. Absent on the last page. */
                    link?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Project"][];
                };
            };
            /** @description Invalid input (validation_error), naming the offending field. */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Missing or invalid bearer token (or, for a webhook, a bad or missing signature). */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description A run token may not do this, a member may not (an admin's act, or any executor in a body), or an owner rule forbids it. */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The Host header names a host this server does not serve (OFFICE_ALLOWED_HOSTS). */
            421: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description An internal fault (internal_error); the server log has the details. Bad input never answers 500. */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    createProject: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    workspace_id: string;
                    name: string;
                    default_executor?: components["schemas"]["ExecutorSpecInput"] | null;
                };
            };
        };
        responses: {
            /** @description Created */
            201: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Project"];
                };
            };
            /** @description Invalid input (validation_error), naming the offending field. */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Missing or invalid bearer token (or, for a webhook, a bad or missing signature). */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description A run token may not do this, a member may not (an admin's act, or any executor in a body), or an owner rule forbids it. */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description An id names nothing. */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The request conflicts with the resource's state. */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The body is over the size limit (OFFICE_BODY_LIMIT_BYTES, default 1 MiB). */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The body is not JSON. */
            415: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The Host header names a host this server does not serve (OFFICE_ALLOWED_HOSTS). */
            421: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description An internal fault (internal_error); the server log has the details. Bad input never answers 500. */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The database cannot be written (storage_unavailable); retry after the Retry-After header. */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    getProject: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description OK */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Project"];
                };
            };
            /** @description Invalid input (validation_error), naming the offending field. */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Missing or invalid bearer token (or, for a webhook, a bad or missing signature). */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description A run token may not do this, a member may not (an admin's act, or any executor in a body), or an owner rule forbids it. */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description An id names nothing. */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description A path parameter is longer than the router accepts (256 characters); such a path may also answer 404. */
            414: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The Host header names a host this server does not serve (OFFICE_ALLOWED_HOSTS). */
            421: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description An internal fault (internal_error); the server log has the details. Bad input never answers 500. */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    updateProject: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                id: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    name?: string;
                    default_executor?: components["schemas"]["ExecutorSpecInput"] | null;
                };
            };
        };
        responses: {
            /** @description OK */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Project"];
                };
            };
            /** @description Invalid input (validation_error), naming the offending field. */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Missing or invalid bearer token (or, for a webhook, a bad or missing signature). */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description A run token may not do this, a member may not (an admin's act, or any executor in a body), or an owner rule forbids it. */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description An id names nothing. */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The request conflicts with the resource's state. */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The body is over the size limit (OFFICE_BODY_LIMIT_BYTES, default 1 MiB). */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description A path parameter is longer than the router accepts (256 characters); such a path may also answer 404. */
            414: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The body is not JSON. */
            415: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The Host header names a host this server does not serve (OFFICE_ALLOWED_HOSTS). */
            421: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description An internal fault (internal_error); the server log has the details. Bad input never answers 500. */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The database cannot be written (storage_unavailable); retry after the Retry-After header. */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    listAgents: {
        parameters: {
            query?: {
                workspace_id?: string;
                /** @description How many rows a page holds: 1..1000, 1000 when absent. */
                limit?: number;
                /** @description Where the page starts: the `next-cursor` header of the previous page, as it came. Absent: the first page. */
                cursor?: string;
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description OK */
            200: {
                headers: {
                    /** @description Where the next page starts: pass it as `?cursor=` (with the same filters). Absent on the last page. */
                    "next-cursor"?: string;
                    /** @description The next page as a link: `<path?…&cursor=…>; rel="next"`. Absent on the last page. */
                    link?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Agent"][];
                };
            };
            /** @description Invalid input (validation_error), naming the offending field. */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Missing or invalid bearer token (or, for a webhook, a bad or missing signature). */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description A run token may not do this, a member may not (an admin's act, or any executor in a body), or an owner rule forbids it. */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The Host header names a host this server does not serve (OFFICE_ALLOWED_HOSTS). */
            421: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description An internal fault (internal_error); the server log has the details. Bad input never answers 500. */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    createAgent: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    workspace_id: string;
                    name: string;
                    /** @enum {string} */
                    role: "ceo" | "coordinator" | "worker" | "specialist" | "assistant";
                    executor?: components["schemas"]["ExecutorSpecInput"] | null;
                    skip_idle_wakeups?: boolean;
                    max_concurrent_sessions?: number;
                    cooldown_sec?: number;
                    daily_run_cap?: number | null;
                    daily_cost_cap_usd?: number | null;
                    max_concurrent_routine_runs?: number | null;
                };
            };
        };
        responses: {
            /** @description Created */
            201: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Agent"];
                };
            };
            /** @description Invalid input (validation_error), naming the offending field. */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Missing or invalid bearer token (or, for a webhook, a bad or missing signature). */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description A run token may not do this, a member may not (an admin's act, or any executor in a body), or an owner rule forbids it. */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description An id names nothing. */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The request conflicts with the resource's state. */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The body is over the size limit (OFFICE_BODY_LIMIT_BYTES, default 1 MiB). */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The body is not JSON. */
            415: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The Host header names a host this server does not serve (OFFICE_ALLOWED_HOSTS). */
            421: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description An internal fault (internal_error); the server log has the details. Bad input never answers 500. */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The database cannot be written (storage_unavailable); retry after the Retry-After header. */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    getAgent: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description OK */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Agent"];
                };
            };
            /** @description Invalid input (validation_error), naming the offending field. */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Missing or invalid bearer token (or, for a webhook, a bad or missing signature). */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description A run token may not do this, a member may not (an admin's act, or any executor in a body), or an owner rule forbids it. */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description An id names nothing. */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description A path parameter is longer than the router accepts (256 characters); such a path may also answer 404. */
            414: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The Host header names a host this server does not serve (OFFICE_ALLOWED_HOSTS). */
            421: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description An internal fault (internal_error); the server log has the details. Bad input never answers 500. */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    deleteAgent: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Done; no content. */
            204: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
            /** @description Invalid input (validation_error), naming the offending field. */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Missing or invalid bearer token (or, for a webhook, a bad or missing signature). */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description A run token may not do this, a member may not (an admin's act, or any executor in a body), or an owner rule forbids it. */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description An id names nothing. */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The request conflicts with the resource's state. */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The body is over the size limit (OFFICE_BODY_LIMIT_BYTES, default 1 MiB). */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description A path parameter is longer than the router accepts (256 characters); such a path may also answer 404. */
            414: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The body is not JSON. */
            415: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The Host header names a host this server does not serve (OFFICE_ALLOWED_HOSTS). */
            421: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description An internal fault (internal_error); the server log has the details. Bad input never answers 500. */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The database cannot be written (storage_unavailable); retry after the Retry-After header. */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    updateAgent: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                id: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    name?: string;
                    /** @enum {string} */
                    role?: "ceo" | "coordinator" | "worker" | "specialist" | "assistant";
                    executor?: components["schemas"]["ExecutorSpecInput"] | null;
                    skip_idle_wakeups?: boolean;
                    max_concurrent_sessions?: number;
                    cooldown_sec?: number;
                    daily_run_cap?: number | null;
                    daily_cost_cap_usd?: number | null;
                    max_concurrent_routine_runs?: number | null;
                    /** @enum {string} */
                    status?: "idle" | "paused" | "stopped";
                };
            };
        };
        responses: {
            /** @description OK */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Agent"];
                };
            };
            /** @description Invalid input (validation_error), naming the offending field. */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Missing or invalid bearer token (or, for a webhook, a bad or missing signature). */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description A run token may not do this, a member may not (an admin's act, or any executor in a body), or an owner rule forbids it. */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description An id names nothing. */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The request conflicts with the resource's state. */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The body is over the size limit (OFFICE_BODY_LIMIT_BYTES, default 1 MiB). */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description A path parameter is longer than the router accepts (256 characters); such a path may also answer 404. */
            414: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The body is not JSON. */
            415: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The Host header names a host this server does not serve (OFFICE_ALLOWED_HOSTS). */
            421: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description An internal fault (internal_error); the server log has the details. Bad input never answers 500. */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The database cannot be written (storage_unavailable); retry after the Retry-After header. */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    wakeAgent: {
        parameters: {
            query?: never;
            header?: {
                "idempotency-key"?: string;
            };
            path: {
                id: string;
            };
            cookie?: never;
        };
        requestBody?: {
            content: {
                "application/json": {
                    reason?: string;
                    context?: {
                        [key: string]: unknown;
                    };
                    idempotency_key?: string;
                    delay_sec?: number;
                    /** Format: date-time */
                    at?: string;
                };
            };
        };
        responses: {
            /** @description A repeat of an earlier request (same idempotency key within the window): its first wakeup; nothing new was created. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["WakeResponse"];
                };
            };
            /** @description A wakeup was requested (queued, or folded into one already waiting). */
            202: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["WakeResponse"];
                };
            };
            /** @description Invalid input (validation_error), naming the offending field. */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Missing or invalid bearer token (or, for a webhook, a bad or missing signature). */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description A run token may not do this, a member may not (an admin's act, or any executor in a body), or an owner rule forbids it. */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description An id names nothing. */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The request conflicts with the resource's state. */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The body is over the size limit (OFFICE_BODY_LIMIT_BYTES, default 1 MiB). */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description A path parameter is longer than the router accepts (256 characters); such a path may also answer 404. */
            414: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The body is not JSON. */
            415: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The Host header names a host this server does not serve (OFFICE_ALLOWED_HOSTS). */
            421: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description An internal fault (internal_error); the server log has the details. Bad input never answers 500. */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The database cannot be written (storage_unavailable); retry after the Retry-After header. */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    listAgentSummaries: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description OK */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ContinuationSummary"][];
                };
            };
            /** @description Invalid input (validation_error), naming the offending field. */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Missing or invalid bearer token (or, for a webhook, a bad or missing signature). */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description A run token may not do this, a member may not (an admin's act, or any executor in a body), or an owner rule forbids it. */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description An id names nothing. */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description A path parameter is longer than the router accepts (256 characters); such a path may also answer 404. */
            414: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The Host header names a host this server does not serve (OFFICE_ALLOWED_HOSTS). */
            421: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description An internal fault (internal_error); the server log has the details. Bad input never answers 500. */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    listTasks: {
        parameters: {
            query?: {
                workspace_id?: string;
                assignee?: string;
                state?: "TODO" | "IN_PROGRESS" | "IN_REVIEW" | "DONE" | "CANCELLED" | "BLOCKED" | "ARCHIVED";
                parent_id?: string;
                include_routine?: "true" | "false";
                /** @description How many rows a page holds: 1..1000, 200 when absent. */
                limit?: number;
                /** @description Where the page starts: the `next-cursor` header of the previous page, as it came. Absent: the first page. */
                cursor?: string;
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description OK */
            200: {
                headers: {
                    /** @description Where the next page starts: pass it as `?cursor=` (with the same filters). Absent on the last page. */
                    "next-cursor"?: string;
                    /** @description The next page as a link: `<path?…&cursor=…>; rel="next"`. Absent on the last page. */
                    link?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Task"][];
                };
            };
            /** @description Invalid input (validation_error), naming the offending field. */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Missing or invalid bearer token (or, for a webhook, a bad or missing signature). */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description A run token may not do this, a member may not (an admin's act, or any executor in a body), or an owner rule forbids it. */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The Host header names a host this server does not serve (OFFICE_ALLOWED_HOSTS). */
            421: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description An internal fault (internal_error); the server log has the details. Bad input never answers 500. */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    createTask: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    workspace_id: string;
                    title: string;
                    description?: string;
                    assignee_agent_instance_id?: string | null;
                    parent_id?: string | null;
                    blocked_by?: string[];
                    requires_approval?: boolean;
                    reviewers?: string[];
                    project_id?: string | null;
                    executor?: components["schemas"]["ExecutorSpecInput"] | null;
                };
            };
        };
        responses: {
            /** @description Created */
            201: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Task"];
                };
            };
            /** @description Invalid input (validation_error), naming the offending field. */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Missing or invalid bearer token (or, for a webhook, a bad or missing signature). */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description A run token may not do this, a member may not (an admin's act, or any executor in a body), or an owner rule forbids it. */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description An id names nothing. */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The request conflicts with the resource's state. */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The body is over the size limit (OFFICE_BODY_LIMIT_BYTES, default 1 MiB). */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The body is not JSON. */
            415: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The Host header names a host this server does not serve (OFFICE_ALLOWED_HOSTS). */
            421: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description An internal fault (internal_error); the server log has the details. Bad input never answers 500. */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The database cannot be written (storage_unavailable); retry after the Retry-After header. */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    getTask: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description OK */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Task"];
                };
            };
            /** @description Invalid input (validation_error), naming the offending field. */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Missing or invalid bearer token (or, for a webhook, a bad or missing signature). */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description A run token may not do this, a member may not (an admin's act, or any executor in a body), or an owner rule forbids it. */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description An id names nothing. */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description A path parameter is longer than the router accepts (256 characters); such a path may also answer 404. */
            414: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The Host header names a host this server does not serve (OFFICE_ALLOWED_HOSTS). */
            421: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description An internal fault (internal_error); the server log has the details. Bad input never answers 500. */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    updateTask: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                id: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    title?: string;
                    description?: string;
                    assignee_agent_instance_id?: string | null;
                    blocked_by?: string[];
                    reviewers?: string[];
                    requires_approval?: boolean;
                    executor?: components["schemas"]["ExecutorSpecInput"] | null;
                };
            };
        };
        responses: {
            /** @description OK */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Task"];
                };
            };
            /** @description Invalid input (validation_error), naming the offending field. */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Missing or invalid bearer token (or, for a webhook, a bad or missing signature). */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description A run token may not do this, a member may not (an admin's act, or any executor in a body), or an owner rule forbids it. */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description An id names nothing. */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The request conflicts with the resource's state. */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The body is over the size limit (OFFICE_BODY_LIMIT_BYTES, default 1 MiB). */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description A path parameter is longer than the router accepts (256 characters); such a path may also answer 404. */
            414: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The body is not JSON. */
            415: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The Host header names a host this server does not serve (OFFICE_ALLOWED_HOSTS). */
            421: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description An internal fault (internal_error); the server log has the details. Bad input never answers 500. */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The database cannot be written (storage_unavailable); retry after the Retry-After header. */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    moveTask: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                id: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    /** @enum {string} */
                    state: "TODO" | "IN_PROGRESS" | "IN_REVIEW" | "DONE" | "CANCELLED" | "BLOCKED" | "ARCHIVED";
                    note?: string;
                };
            };
        };
        responses: {
            /** @description OK */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Task"];
                };
            };
            /** @description Invalid input (validation_error), naming the offending field. */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Missing or invalid bearer token (or, for a webhook, a bad or missing signature). */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description A run token may not do this, a member may not (an admin's act, or any executor in a body), or an owner rule forbids it. */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description An id names nothing. */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The request conflicts with the resource's state. */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The body is over the size limit (OFFICE_BODY_LIMIT_BYTES, default 1 MiB). */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description A path parameter is longer than the router accepts (256 characters); such a path may also answer 404. */
            414: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The body is not JSON. */
            415: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The Host header names a host this server does not serve (OFFICE_ALLOWED_HOSTS). */
            421: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description An internal fault (internal_error); the server log has the details. Bad input never answers 500. */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The database cannot be written (storage_unavailable); retry after the Retry-After header. */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    listComments: {
        parameters: {
            query?: {
                /** @description How many rows a page holds: 1..1000, 1000 when absent. */
                limit?: number;
                /** @description Where the page starts: the `next-cursor` header of the previous page, as it came. Absent: the first page. */
                cursor?: string;
            };
            header?: never;
            path: {
                id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description OK */
            200: {
                headers: {
                    /** @description Where the next page starts: pass it as `?cursor=` (with the same filters). Absent on the last page. */
                    "next-cursor"?: string;
                    /** @description The next page as a link: `<path?…&cursor=…>; rel="next"`. Absent on the last page. */
                    link?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Comment"][];
                };
            };
            /** @description Invalid input (validation_error), naming the offending field. */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Missing or invalid bearer token (or, for a webhook, a bad or missing signature). */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description A run token may not do this, a member may not (an admin's act, or any executor in a body), or an owner rule forbids it. */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description An id names nothing. */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description A path parameter is longer than the router accepts (256 characters); such a path may also answer 404. */
            414: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The Host header names a host this server does not serve (OFFICE_ALLOWED_HOSTS). */
            421: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description An internal fault (internal_error); the server log has the details. Bad input never answers 500. */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    createComment: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                id: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    body: string;
                    /** @enum {string} */
                    author_type?: "user" | "agent";
                    author_id?: string;
                };
            };
        };
        responses: {
            /** @description Created */
            201: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Comment"];
                };
            };
            /** @description Invalid input (validation_error), naming the offending field. */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Missing or invalid bearer token (or, for a webhook, a bad or missing signature). */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description A run token may not do this, a member may not (an admin's act, or any executor in a body), or an owner rule forbids it. */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description An id names nothing. */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The request conflicts with the resource's state. */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The body is over the size limit (OFFICE_BODY_LIMIT_BYTES, default 1 MiB). */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description A path parameter is longer than the router accepts (256 characters); such a path may also answer 404. */
            414: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The body is not JSON. */
            415: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The Host header names a host this server does not serve (OFFICE_ALLOWED_HOSTS). */
            421: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description An internal fault (internal_error); the server log has the details. Bad input never answers 500. */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The database cannot be written (storage_unavailable); retry after the Retry-After header. */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    createApproval: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    task_id?: string | null;
                    requested_by_agent_id: string;
                    title: string;
                };
            };
        };
        responses: {
            /** @description Created */
            201: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Approval"];
                };
            };
            /** @description Invalid input (validation_error), naming the offending field. */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Missing or invalid bearer token (or, for a webhook, a bad or missing signature). */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description A run token may not do this, a member may not (an admin's act, or any executor in a body), or an owner rule forbids it. */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description An id names nothing. */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The request conflicts with the resource's state. */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The body is over the size limit (OFFICE_BODY_LIMIT_BYTES, default 1 MiB). */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The body is not JSON. */
            415: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The Host header names a host this server does not serve (OFFICE_ALLOWED_HOSTS). */
            421: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description An internal fault (internal_error); the server log has the details. Bad input never answers 500. */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The database cannot be written (storage_unavailable); retry after the Retry-After header. */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    getApproval: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description OK */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Approval"];
                };
            };
            /** @description Invalid input (validation_error), naming the offending field. */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Missing or invalid bearer token (or, for a webhook, a bad or missing signature). */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description A run token may not do this, a member may not (an admin's act, or any executor in a body), or an owner rule forbids it. */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description An id names nothing. */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description A path parameter is longer than the router accepts (256 characters); such a path may also answer 404. */
            414: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The Host header names a host this server does not serve (OFFICE_ALLOWED_HOSTS). */
            421: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description An internal fault (internal_error); the server log has the details. Bad input never answers 500. */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    resolveApproval: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                id: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    /** @enum {string} */
                    status: "approved" | "rejected";
                    decision_note?: string | null;
                };
            };
        };
        responses: {
            /** @description OK */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Approval"];
                };
            };
            /** @description Invalid input (validation_error), naming the offending field. */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Missing or invalid bearer token (or, for a webhook, a bad or missing signature). */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description A run token may not do this, a member may not (an admin's act, or any executor in a body), or an owner rule forbids it. */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description An id names nothing. */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The request conflicts with the resource's state. */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The body is over the size limit (OFFICE_BODY_LIMIT_BYTES, default 1 MiB). */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description A path parameter is longer than the router accepts (256 characters); such a path may also answer 404. */
            414: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The body is not JSON. */
            415: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The Host header names a host this server does not serve (OFFICE_ALLOWED_HOSTS). */
            421: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description An internal fault (internal_error); the server log has the details. Bad input never answers 500. */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The database cannot be written (storage_unavailable); retry after the Retry-After header. */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    listBudgets: {
        parameters: {
            query?: {
                workspace_id?: string;
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description OK */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["BudgetWithSpend"][];
                };
            };
            /** @description Invalid input (validation_error), naming the offending field. */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Missing or invalid bearer token (or, for a webhook, a bad or missing signature). */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description A run token may not do this, a member may not (an admin's act, or any executor in a body), or an owner rule forbids it. */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The Host header names a host this server does not serve (OFFICE_ALLOWED_HOSTS). */
            421: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description An internal fault (internal_error); the server log has the details. Bad input never answers 500. */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    createBudget: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    /** @enum {string} */
                    scope: "workspace" | "project" | "agent";
                    scope_id: string;
                    limit_usd: number;
                    /** @enum {string} */
                    period: "daily" | "monthly" | "total";
                    /** @enum {string} */
                    action_on_exceed: "pause_agent" | "warn";
                    alert_threshold_pct?: number | null;
                };
            };
        };
        responses: {
            /** @description Created */
            201: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Budget"];
                };
            };
            /** @description Invalid input (validation_error), naming the offending field. */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Missing or invalid bearer token (or, for a webhook, a bad or missing signature). */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description A run token may not do this, a member may not (an admin's act, or any executor in a body), or an owner rule forbids it. */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description An id names nothing. */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The request conflicts with the resource's state. */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The body is over the size limit (OFFICE_BODY_LIMIT_BYTES, default 1 MiB). */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The body is not JSON. */
            415: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The Host header names a host this server does not serve (OFFICE_ALLOWED_HOSTS). */
            421: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description An internal fault (internal_error); the server log has the details. Bad input never answers 500. */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The database cannot be written (storage_unavailable); retry after the Retry-After header. */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    deleteBudget: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Done; no content. */
            204: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
            /** @description Invalid input (validation_error), naming the offending field. */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Missing or invalid bearer token (or, for a webhook, a bad or missing signature). */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description A run token may not do this, a member may not (an admin's act, or any executor in a body), or an owner rule forbids it. */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description An id names nothing. */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The request conflicts with the resource's state. */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The body is over the size limit (OFFICE_BODY_LIMIT_BYTES, default 1 MiB). */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description A path parameter is longer than the router accepts (256 characters); such a path may also answer 404. */
            414: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The body is not JSON. */
            415: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The Host header names a host this server does not serve (OFFICE_ALLOWED_HOSTS). */
            421: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description An internal fault (internal_error); the server log has the details. Bad input never answers 500. */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The database cannot be written (storage_unavailable); retry after the Retry-After header. */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    updateBudget: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                id: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    limit_usd?: number;
                    /** @enum {string} */
                    period?: "daily" | "monthly" | "total";
                    /** @enum {string} */
                    action_on_exceed?: "pause_agent" | "warn";
                    alert_threshold_pct?: number | null;
                };
            };
        };
        responses: {
            /** @description OK */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Budget"];
                };
            };
            /** @description Invalid input (validation_error), naming the offending field. */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Missing or invalid bearer token (or, for a webhook, a bad or missing signature). */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description A run token may not do this, a member may not (an admin's act, or any executor in a body), or an owner rule forbids it. */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description An id names nothing. */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The request conflicts with the resource's state. */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The body is over the size limit (OFFICE_BODY_LIMIT_BYTES, default 1 MiB). */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description A path parameter is longer than the router accepts (256 characters); such a path may also answer 404. */
            414: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The body is not JSON. */
            415: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The Host header names a host this server does not serve (OFFICE_ALLOWED_HOSTS). */
            421: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description An internal fault (internal_error); the server log has the details. Bad input never answers 500. */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The database cannot be written (storage_unavailable); retry after the Retry-After header. */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    listWakeups: {
        parameters: {
            query?: {
                agent_id?: string;
                status?: "queued" | "claimed" | "coalesced" | "skipped" | "finished" | "failed" | "cancelled" | "scheduled_retry";
                source?: "routine" | "comment" | "agent_error" | "self" | "user" | "task_assigned" | "task_blockers_resolved" | "task_children_completed" | "approval_resolved" | "budget_alert";
                task_id?: string;
                workspace_id?: string;
                /** @description How many rows a page holds: 1..1000, 200 when absent. */
                limit?: number;
                /** @description Where the page starts: the `next-cursor` header of the previous page, as it came. Absent: the first page. */
                cursor?: string;
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description OK */
            200: {
                headers: {
                    /** @description Where the next page starts: pass it as `?cursor=` (with the same filters). Absent on the last page. */
                    "next-cursor"?: string;
                    /** @description The next page as a link: `<path?…&cursor=…>; rel="next"`. Absent on the last page. */
                    link?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Wakeup"][];
                };
            };
            /** @description Invalid input (validation_error), naming the offending field. */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Missing or invalid bearer token (or, for a webhook, a bad or missing signature). */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description A run token may not do this, a member may not (an admin's act, or any executor in a body), or an owner rule forbids it. */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The Host header names a host this server does not serve (OFFICE_ALLOWED_HOSTS). */
            421: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description An internal fault (internal_error); the server log has the details. Bad input never answers 500. */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    explainWakeup: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description OK */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["WakeupDetail"];
                };
            };
            /** @description Invalid input (validation_error), naming the offending field. */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Missing or invalid bearer token (or, for a webhook, a bad or missing signature). */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description A run token may not do this, a member may not (an admin's act, or any executor in a body), or an owner rule forbids it. */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description An id names nothing. */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description A path parameter is longer than the router accepts (256 characters); such a path may also answer 404. */
            414: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The Host header names a host this server does not serve (OFFICE_ALLOWED_HOSTS). */
            421: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description An internal fault (internal_error); the server log has the details. Bad input never answers 500. */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    listRuns: {
        parameters: {
            query?: {
                workspace_id?: string;
                agent_id?: string;
                task_id?: string;
                wakeup_id?: string;
                status?: "queued" | "running" | "succeeded" | "failed" | "interrupted" | "cancelled";
                /** @description How many rows a page holds: 1..1000, 200 when absent. */
                limit?: number;
                /** @description Where the page starts: the `next-cursor` header of the previous page, as it came. Absent: the first page. */
                cursor?: string;
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description OK */
            200: {
                headers: {
                    /** @description Where the next page starts: pass it as `?cursor=` (with the same filters). Absent on the last page. */
                    "next-cursor"?: string;
                    /** @description The next page as a link: `<path?…&cursor=…>; rel="next"`. Absent on the last page. */
                    link?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Run"][];
                };
            };
            /** @description Invalid input (validation_error), naming the offending field. */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Missing or invalid bearer token (or, for a webhook, a bad or missing signature). */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description A run token may not do this, a member may not (an admin's act, or any executor in a body), or an owner rule forbids it. */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The Host header names a host this server does not serve (OFFICE_ALLOWED_HOSTS). */
            421: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description An internal fault (internal_error); the server log has the details. Bad input never answers 500. */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    getRun: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description OK */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Run"];
                };
            };
            /** @description Invalid input (validation_error), naming the offending field. */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Missing or invalid bearer token (or, for a webhook, a bad or missing signature). */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description A run token may not do this, a member may not (an admin's act, or any executor in a body), or an owner rule forbids it. */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description An id names nothing. */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description A path parameter is longer than the router accepts (256 characters); such a path may also answer 404. */
            414: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The Host header names a host this server does not serve (OFFICE_ALLOWED_HOSTS). */
            421: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description An internal fault (internal_error); the server log has the details. Bad input never answers 500. */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    getRunTranscript: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description OK */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Transcript"];
                };
            };
            /** @description Invalid input (validation_error), naming the offending field. */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Missing or invalid bearer token (or, for a webhook, a bad or missing signature). */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description A run token may not do this, a member may not (an admin's act, or any executor in a body), or an owner rule forbids it. */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description An id names nothing. */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description A path parameter is longer than the router accepts (256 characters); such a path may also answer 404. */
            414: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The Host header names a host this server does not serve (OFFICE_ALLOWED_HOSTS). */
            421: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description An internal fault (internal_error); the server log has the details. Bad input never answers 500. */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    listQuotas: {
        parameters: {
            query?: {
                /** @description Also list quotas not exhausted now. */
                all?: "true" | "false";
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description OK */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Quota"][];
                };
            };
            /** @description Invalid input (validation_error), naming the offending field. */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Missing or invalid bearer token (or, for a webhook, a bad or missing signature). */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description A run token may not do this, a member may not (an admin's act, or any executor in a body), or an owner rule forbids it. */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The Host header names a host this server does not serve (OFFICE_ALLOWED_HOSTS). */
            421: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description An internal fault (internal_error); the server log has the details. Bad input never answers 500. */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    cancelRun: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                id: string;
            };
            cookie?: never;
        };
        requestBody?: {
            content: {
                "application/json": {
                    /** @description Why the run is stopped: kept in its error and in the activity entry. */
                    reason?: string;
                } | null;
            };
        };
        responses: {
            /** @description OK */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Run"];
                };
            };
            /** @description Invalid input (validation_error), naming the offending field. */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Missing or invalid bearer token (or, for a webhook, a bad or missing signature). */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description A run token may not do this, a member may not (an admin's act, or any executor in a body), or an owner rule forbids it. */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description An id names nothing. */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The request conflicts with the resource's state. */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The body is over the size limit (OFFICE_BODY_LIMIT_BYTES, default 1 MiB). */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description A path parameter is longer than the router accepts (256 characters); such a path may also answer 404. */
            414: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The body is not JSON. */
            415: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The Host header names a host this server does not serve (OFFICE_ALLOWED_HOSTS). */
            421: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description An internal fault (internal_error); the server log has the details. Bad input never answers 500. */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The database cannot be written (storage_unavailable); retry after the Retry-After header. */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    listActivity: {
        parameters: {
            query?: {
                workspace_id?: string;
                code?: string;
                wakeup_id?: string;
                agent_id?: string;
                /** @description `true`: only entries caused by a cron or webhook fire (and its follow-on work); `false`: only attended ones. */
                unattended?: "true" | "false";
                /** @description How many rows a page holds: 1..1000, 200 when absent. */
                limit?: number;
                /** @description Where the page starts: the `next-cursor` header of the previous page, as it came. Absent: the first page. */
                cursor?: string;
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description OK */
            200: {
                headers: {
                    /** @description Where the next page starts: pass it as `?cursor=` (with the same filters). Absent on the last page. */
                    "next-cursor"?: string;
                    /** @description The next page as a link: `<path?…&cursor=…>; rel="next"`. Absent on the last page. */
                    link?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ActivityEntry"][];
                };
            };
            /** @description Invalid input (validation_error), naming the offending field. */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Missing or invalid bearer token (or, for a webhook, a bad or missing signature). */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description A run token may not do this, a member may not (an admin's act, or any executor in a body), or an owner rule forbids it. */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The Host header names a host this server does not serve (OFFICE_ALLOWED_HOSTS). */
            421: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description An internal fault (internal_error); the server log has the details. Bad input never answers 500. */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    listInbox: {
        parameters: {
            query?: {
                workspace_id?: string;
                /** @description `open`: every open item, however many resolved ones there are; `resolved`: the newest resolved ones. Absent: both. */
                status?: "open" | "resolved";
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description OK */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["InboxItem"][];
                };
            };
            /** @description Invalid input (validation_error), naming the offending field. */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Missing or invalid bearer token (or, for a webhook, a bad or missing signature). */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description A run token may not do this, a member may not (an admin's act, or any executor in a body), or an owner rule forbids it. */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The Host header names a host this server does not serve (OFFICE_ALLOWED_HOSTS). */
            421: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description An internal fault (internal_error); the server log has the details. Bad input never answers 500. */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    resolveInboxItem: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description OK */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["InboxItem"];
                };
            };
            /** @description Invalid input (validation_error), naming the offending field. */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Missing or invalid bearer token (or, for a webhook, a bad or missing signature). */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description A run token may not do this, a member may not (an admin's act, or any executor in a body), or an owner rule forbids it. */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description An id names nothing. */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The request conflicts with the resource's state. */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The body is over the size limit (OFFICE_BODY_LIMIT_BYTES, default 1 MiB). */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description A path parameter is longer than the router accepts (256 characters); such a path may also answer 404. */
            414: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The body is not JSON. */
            415: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The Host header names a host this server does not serve (OFFICE_ALLOWED_HOSTS). */
            421: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description An internal fault (internal_error); the server log has the details. Bad input never answers 500. */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The database cannot be written (storage_unavailable); retry after the Retry-After header. */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    getStats: {
        parameters: {
            query: {
                workspace_id: string;
                /** @description Only this agent's wakeups and costs. */
                agent_id?: string;
                /** @description Start of the range (rounded down to its bucket). Default: 60 buckets before `to` (30 for days). */
                from?: string;
                /** @description End of the range, exclusive. Default: now. */
                to?: string;
                /** @description Bucket width: minute, hour or day (UTC days). At most 1440 buckets per request. */
                bucket?: "minute" | "hour" | "day";
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Wakeups by outcome and cost, per bucket, counted in SQL. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Stats"];
                };
            };
            /** @description Invalid input (validation_error), naming the offending field. */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Missing or invalid bearer token (or, for a webhook, a bad or missing signature). */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description A run token may not do this, a member may not (an admin's act, or any executor in a body), or an owner rule forbids it. */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description An id names nothing. */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The Host header names a host this server does not serve (OFFICE_ALLOWED_HOSTS). */
            421: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description An internal fault (internal_error); the server log has the details. Bad input never answers 500. */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    getRunTimeline: {
        parameters: {
            query: {
                workspace_id: string;
                /** @description Only this agent's runs. */
                agent_id?: string;
                /** @description Start of the range. Default: 24 hours before `to`. */
                from?: string;
                /** @description End of the range, exclusive. Default: now. */
                to?: string;
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The runs of a range, one bar each, for a timeline. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Timeline"];
                };
            };
            /** @description Invalid input (validation_error), naming the offending field. */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Missing or invalid bearer token (or, for a webhook, a bad or missing signature). */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description A run token may not do this, a member may not (an admin's act, or any executor in a body), or an owner rule forbids it. */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description An id names nothing. */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The Host header names a host this server does not serve (OFFICE_ALLOWED_HOSTS). */
            421: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description An internal fault (internal_error); the server log has the details. Bad input never answers 500. */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    listRoutines: {
        parameters: {
            query?: {
                workspace_id?: string;
                /** @description How many rows a page holds: 1..1000, 1000 when absent. */
                limit?: number;
                /** @description Where the page starts: the `next-cursor` header of the previous page, as it came. Absent: the first page. */
                cursor?: string;
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description OK */
            200: {
                headers: {
                    /** @description Where the next page starts: pass it as `?cursor=` (with the same filters). Absent on the last page. */
                    "next-cursor"?: string;
                    /** @description The next page as a link: `<path?…&cursor=…>; rel="next"`. Absent on the last page. */
                    link?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["RoutineListItem"][];
                };
            };
            /** @description Invalid input (validation_error), naming the offending field. */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Missing or invalid bearer token (or, for a webhook, a bad or missing signature). */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description A run token may not do this, a member may not (an admin's act, or any executor in a body), or an owner rule forbids it. */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The Host header names a host this server does not serve (OFFICE_ALLOWED_HOSTS). */
            421: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description An internal fault (internal_error); the server log has the details. Bad input never answers 500. */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    createRoutine: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    workspace_id: string;
                    name: string;
                    description?: string;
                    assignee_agent_instance_id: string;
                    owner_id?: string;
                    /** @enum {string} */
                    status?: "active" | "paused";
                    /** @enum {string} */
                    concurrency_policy?: "coalesce_if_active" | "skip_if_active" | "always_enqueue";
                    /** @enum {string} */
                    catch_up_policy?: "enqueue_missed_with_cap" | "skip_missed";
                    catch_up_max?: number;
                    task_template?: {
                        title: string;
                        description?: string;
                    } | null;
                    variables?: {
                        name: string;
                        /** @enum {string} */
                        type: "text" | "number" | "boolean" | "select";
                        default?: string | number | boolean | null;
                        /** @default false */
                        required?: boolean;
                        options?: string[];
                        description?: string;
                    }[];
                    priority?: number;
                    jitter_sec?: number;
                    delivery?: {
                        /** @enum {string} */
                        kind: "webhook";
                        /** Format: uri */
                        url: string;
                    } | null;
                    consecutive_failure_limit?: number;
                    triggers?: ({
                        /** @enum {string} */
                        kind: "schedule";
                        cron_expression: string;
                        timezone?: string;
                        enabled?: boolean;
                    } | {
                        /** @enum {string} */
                        kind: "webhook";
                        /** @enum {string} */
                        signing_mode: "none" | "bearer" | "hmac_sha256";
                        secret?: string;
                        enabled?: boolean;
                    } | {
                        /** @enum {string} */
                        kind: "manual";
                        enabled?: boolean;
                    })[];
                };
            };
        };
        responses: {
            /** @description Created */
            201: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Routine"];
                };
            };
            /** @description Invalid input (validation_error), naming the offending field. */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Missing or invalid bearer token (or, for a webhook, a bad or missing signature). */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description A run token may not do this, a member may not (an admin's act, or any executor in a body), or an owner rule forbids it. */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description An id names nothing. */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The request conflicts with the resource's state. */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The body is over the size limit (OFFICE_BODY_LIMIT_BYTES, default 1 MiB). */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The body is not JSON. */
            415: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The Host header names a host this server does not serve (OFFICE_ALLOWED_HOSTS). */
            421: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description An internal fault (internal_error); the server log has the details. Bad input never answers 500. */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The database cannot be written (storage_unavailable); retry after the Retry-After header. */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    getRoutine: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description OK */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Routine"];
                };
            };
            /** @description Invalid input (validation_error), naming the offending field. */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Missing or invalid bearer token (or, for a webhook, a bad or missing signature). */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description A run token may not do this, a member may not (an admin's act, or any executor in a body), or an owner rule forbids it. */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description An id names nothing. */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description A path parameter is longer than the router accepts (256 characters); such a path may also answer 404. */
            414: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The Host header names a host this server does not serve (OFFICE_ALLOWED_HOSTS). */
            421: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description An internal fault (internal_error); the server log has the details. Bad input never answers 500. */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    deleteRoutine: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Done; no content. */
            204: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
            /** @description Invalid input (validation_error), naming the offending field. */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Missing or invalid bearer token (or, for a webhook, a bad or missing signature). */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description A run token may not do this, a member may not (an admin's act, or any executor in a body), or an owner rule forbids it. */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description An id names nothing. */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The request conflicts with the resource's state. */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The body is over the size limit (OFFICE_BODY_LIMIT_BYTES, default 1 MiB). */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description A path parameter is longer than the router accepts (256 characters); such a path may also answer 404. */
            414: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The body is not JSON. */
            415: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The Host header names a host this server does not serve (OFFICE_ALLOWED_HOSTS). */
            421: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description An internal fault (internal_error); the server log has the details. Bad input never answers 500. */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The database cannot be written (storage_unavailable); retry after the Retry-After header. */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    updateRoutine: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                id: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    name?: string;
                    description?: string;
                    assignee_agent_instance_id?: string;
                    owner_id?: string;
                    /** @enum {string} */
                    status?: "active" | "paused" | "archived";
                    /** @enum {string} */
                    concurrency_policy?: "coalesce_if_active" | "skip_if_active" | "always_enqueue";
                    /** @enum {string} */
                    catch_up_policy?: "enqueue_missed_with_cap" | "skip_missed";
                    catch_up_max?: number;
                    task_template?: {
                        title: string;
                        description?: string;
                    } | null;
                    variables?: {
                        name: string;
                        /** @enum {string} */
                        type: "text" | "number" | "boolean" | "select";
                        default?: string | number | boolean | null;
                        /** @default false */
                        required?: boolean;
                        options?: string[];
                        description?: string;
                    }[];
                    priority?: number;
                    jitter_sec?: number;
                    delivery?: {
                        /** @enum {string} */
                        kind: "webhook";
                        /** Format: uri */
                        url: string;
                    } | null;
                    consecutive_failure_limit?: number;
                };
            };
        };
        responses: {
            /** @description OK */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Routine"];
                };
            };
            /** @description Invalid input (validation_error), naming the offending field. */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Missing or invalid bearer token (or, for a webhook, a bad or missing signature). */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description A run token may not do this, a member may not (an admin's act, or any executor in a body), or an owner rule forbids it. */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description An id names nothing. */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The request conflicts with the resource's state. */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The body is over the size limit (OFFICE_BODY_LIMIT_BYTES, default 1 MiB). */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description A path parameter is longer than the router accepts (256 characters); such a path may also answer 404. */
            414: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The body is not JSON. */
            415: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The Host header names a host this server does not serve (OFFICE_ALLOWED_HOSTS). */
            421: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description An internal fault (internal_error); the server log has the details. Bad input never answers 500. */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The database cannot be written (storage_unavailable); retry after the Retry-After header. */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    listRoutineRuns: {
        parameters: {
            query?: {
                /** @description How many rows a page holds: 1..1000, 100 when absent. */
                limit?: number;
                /** @description Where the page starts: the `next-cursor` header of the previous page, as it came. Absent: the first page. */
                cursor?: string;
            };
            header?: never;
            path: {
                id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description OK */
            200: {
                headers: {
                    /** @description Where the next page starts: pass it as `?cursor=` (with the same filters). Absent on the last page. */
                    "next-cursor"?: string;
                    /** @description The next page as a link: `<path?…&cursor=…>; rel="next"`. Absent on the last page. */
                    link?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["RoutineRun"][];
                };
            };
            /** @description Invalid input (validation_error), naming the offending field. */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Missing or invalid bearer token (or, for a webhook, a bad or missing signature). */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description A run token may not do this, a member may not (an admin's act, or any executor in a body), or an owner rule forbids it. */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description An id names nothing. */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description A path parameter is longer than the router accepts (256 characters); such a path may also answer 404. */
            414: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The Host header names a host this server does not serve (OFFICE_ALLOWED_HOSTS). */
            421: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description An internal fault (internal_error); the server log has the details. Bad input never answers 500. */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    fireRoutine: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                id: string;
            };
            cookie?: never;
        };
        requestBody?: {
            content: {
                "application/json": {
                    variables?: {
                        [key: string]: unknown;
                    };
                } | null;
            };
        };
        responses: {
            /** @description Accepted */
            202: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["RoutineRunResponse"];
                };
            };
            /** @description Invalid input (validation_error), naming the offending field. */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Missing or invalid bearer token (or, for a webhook, a bad or missing signature). */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description A run token may not do this, a member may not (an admin's act, or any executor in a body), or an owner rule forbids it. */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description An id names nothing. */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The request conflicts with the resource's state. */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The body is over the size limit (OFFICE_BODY_LIMIT_BYTES, default 1 MiB). */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description A path parameter is longer than the router accepts (256 characters); such a path may also answer 404. */
            414: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The body is not JSON. */
            415: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The Host header names a host this server does not serve (OFFICE_ALLOWED_HOSTS). */
            421: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description An internal fault (internal_error); the server log has the details. Bad input never answers 500. */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The database cannot be written (storage_unavailable); retry after the Retry-After header. */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    createRoutineTrigger: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                id: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    /** @enum {string} */
                    kind: "schedule";
                    cron_expression: string;
                    timezone?: string;
                    enabled?: boolean;
                } | {
                    /** @enum {string} */
                    kind: "webhook";
                    /** @enum {string} */
                    signing_mode: "none" | "bearer" | "hmac_sha256";
                    secret?: string;
                    enabled?: boolean;
                } | {
                    /** @enum {string} */
                    kind: "manual";
                    enabled?: boolean;
                };
            };
        };
        responses: {
            /** @description Created */
            201: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["RoutineTrigger"];
                };
            };
            /** @description Invalid input (validation_error), naming the offending field. */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Missing or invalid bearer token (or, for a webhook, a bad or missing signature). */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description A run token may not do this, a member may not (an admin's act, or any executor in a body), or an owner rule forbids it. */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description An id names nothing. */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The request conflicts with the resource's state. */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The body is over the size limit (OFFICE_BODY_LIMIT_BYTES, default 1 MiB). */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description A path parameter is longer than the router accepts (256 characters); such a path may also answer 404. */
            414: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The body is not JSON. */
            415: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The Host header names a host this server does not serve (OFFICE_ALLOWED_HOSTS). */
            421: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description An internal fault (internal_error); the server log has the details. Bad input never answers 500. */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The database cannot be written (storage_unavailable); retry after the Retry-After header. */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    deleteRoutineTrigger: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Done; no content. */
            204: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
            /** @description Invalid input (validation_error), naming the offending field. */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Missing or invalid bearer token (or, for a webhook, a bad or missing signature). */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description A run token may not do this, a member may not (an admin's act, or any executor in a body), or an owner rule forbids it. */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description An id names nothing. */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The request conflicts with the resource's state. */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The body is over the size limit (OFFICE_BODY_LIMIT_BYTES, default 1 MiB). */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description A path parameter is longer than the router accepts (256 characters); such a path may also answer 404. */
            414: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The body is not JSON. */
            415: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The Host header names a host this server does not serve (OFFICE_ALLOWED_HOSTS). */
            421: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description An internal fault (internal_error); the server log has the details. Bad input never answers 500. */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The database cannot be written (storage_unavailable); retry after the Retry-After header. */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    updateRoutineTrigger: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                id: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    cron_expression?: string;
                    timezone?: string;
                    enabled?: boolean;
                    /** @enum {string} */
                    signing_mode?: "none" | "bearer" | "hmac_sha256";
                    secret?: string;
                };
            };
        };
        responses: {
            /** @description OK */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["RoutineTrigger"];
                };
            };
            /** @description Invalid input (validation_error), naming the offending field. */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Missing or invalid bearer token (or, for a webhook, a bad or missing signature). */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description A run token may not do this, a member may not (an admin's act, or any executor in a body), or an owner rule forbids it. */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description An id names nothing. */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The request conflicts with the resource's state. */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The body is over the size limit (OFFICE_BODY_LIMIT_BYTES, default 1 MiB). */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description A path parameter is longer than the router accepts (256 characters); such a path may also answer 404. */
            414: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The body is not JSON. */
            415: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The Host header names a host this server does not serve (OFFICE_ALLOWED_HOSTS). */
            421: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description An internal fault (internal_error); the server log has the details. Bad input never answers 500. */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The database cannot be written (storage_unavailable); retry after the Retry-After header. */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    previewRoutineTrigger: {
        parameters: {
            query?: {
                count?: number;
            };
            header?: never;
            path: {
                id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description OK */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["TriggerPreview"];
                };
            };
            /** @description Invalid input (validation_error), naming the offending field. */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Missing or invalid bearer token (or, for a webhook, a bad or missing signature). */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description A run token may not do this, a member may not (an admin's act, or any executor in a body), or an owner rule forbids it. */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description An id names nothing. */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description A path parameter is longer than the router accepts (256 characters); such a path may also answer 404. */
            414: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The Host header names a host this server does not serve (OFFICE_ALLOWED_HOSTS). */
            421: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description An internal fault (internal_error); the server log has the details. Bad input never answers 500. */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    listApiTokens: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description OK */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ApiToken"][];
                };
            };
            /** @description Invalid input (validation_error), naming the offending field. */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Missing or invalid bearer token (or, for a webhook, a bad or missing signature). */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description A run token may not do this, a member may not (an admin's act, or any executor in a body), or an owner rule forbids it. */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The Host header names a host this server does not serve (OFFICE_ALLOWED_HOSTS). */
            421: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description An internal fault (internal_error); the server log has the details. Bad input never answers 500. */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    createApiToken: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    /** @description Who or what holds the token, e.g. "ci" or "alice". */
                    name: string;
                    /**
                     * @description An admin may do everything; a member manages only the routines it owns.
                     * @enum {string}
                     */
                    role: "admin" | "member";
                };
            };
        };
        responses: {
            /** @description Created */
            201: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["CreatedApiToken"];
                };
            };
            /** @description Invalid input (validation_error), naming the offending field. */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Missing or invalid bearer token (or, for a webhook, a bad or missing signature). */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description A run token may not do this, a member may not (an admin's act, or any executor in a body), or an owner rule forbids it. */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description An id names nothing. */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The request conflicts with the resource's state. */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The body is over the size limit (OFFICE_BODY_LIMIT_BYTES, default 1 MiB). */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The body is not JSON. */
            415: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The Host header names a host this server does not serve (OFFICE_ALLOWED_HOSTS). */
            421: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description An internal fault (internal_error); the server log has the details. Bad input never answers 500. */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The database cannot be written (storage_unavailable); retry after the Retry-After header. */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    revokeApiToken: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Done; no content. */
            204: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
            /** @description Invalid input (validation_error), naming the offending field. */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Missing or invalid bearer token (or, for a webhook, a bad or missing signature). */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description A run token may not do this, a member may not (an admin's act, or any executor in a body), or an owner rule forbids it. */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description An id names nothing. */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The request conflicts with the resource's state. */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The body is over the size limit (OFFICE_BODY_LIMIT_BYTES, default 1 MiB). */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description A path parameter is longer than the router accepts (256 characters); such a path may also answer 404. */
            414: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The body is not JSON. */
            415: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The Host header names a host this server does not serve (OFFICE_ALLOWED_HOSTS). */
            421: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description An internal fault (internal_error); the server log has the details. Bad input never answers 500. */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The database cannot be written (storage_unavailable); retry after the Retry-After header. */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    fireRoutineWebhook: {
        parameters: {
            query?: never;
            header?: {
                /** @description The delivery's id: a repeat within the idempotency window answers 200 with the first delivery's routine run and fires nothing. */
                "x-delivery-id"?: string;
                /** @description GitHub's name for X-Delivery-Id, used when that one is absent. */
                "x-github-delivery"?: string;
            };
            path: {
                public_id: string;
            };
            cookie?: never;
        };
        /** @description Optional, any content type; the signature covers its raw bytes. A JSON object's top-level fields become the routine's variables; an application/x-www-form-urlencoded body with a `payload` field (GitHub's default) is that field parsed as JSON; any other body is the variable `body`, as text. */
        requestBody?: {
            content: {
                "*/*": unknown;
            };
        };
        responses: {
            /** @description A repeated delivery id: the first delivery's routine run; nothing fired. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["RoutineRunResponse"];
                };
            };
            /** @description The first delivery: the routine fired. */
            202: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["RoutineRunResponse"];
                };
            };
            /** @description Invalid input (validation_error), naming the offending field. */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Missing or invalid bearer token (or, for a webhook, a bad or missing signature). */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description An id names nothing. */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The request conflicts with the resource's state. */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The body is over the size limit (OFFICE_BODY_LIMIT_BYTES, default 1 MiB). */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description A path parameter is longer than the router accepts (256 characters); such a path may also answer 404. */
            414: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The Host header names a host this server does not serve (OFFICE_ALLOWED_HOSTS). */
            421: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description An internal fault (internal_error); the server log has the details. Bad input never answers 500. */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The database cannot be written (storage_unavailable); retry after the Retry-After header. */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    getSession: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Who the caller is, and how it signed in. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Session"];
                };
            };
            /** @description Invalid input (validation_error), naming the offending field. */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Missing or invalid bearer token (or, for a webhook, a bad or missing signature). */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description A run token may not do this, a member may not (an admin's act, or any executor in a body), or an owner rule forbids it. */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The Host header names a host this server does not serve (OFFICE_ALLOWED_HOSTS). */
            421: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description An internal fault (internal_error); the server log has the details. Bad input never answers 500. */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    signIn: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Who the caller is, and how it signed in. */
            201: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Session"];
                };
            };
            /** @description Invalid input (validation_error), naming the offending field. */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Missing or invalid bearer token (or, for a webhook, a bad or missing signature). */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description A run token may not do this, a member may not (an admin's act, or any executor in a body), or an owner rule forbids it. */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description An id names nothing. */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The request conflicts with the resource's state. */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The body is over the size limit (OFFICE_BODY_LIMIT_BYTES, default 1 MiB). */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The body is not JSON. */
            415: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The Host header names a host this server does not serve (OFFICE_ALLOWED_HOSTS). */
            421: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description An internal fault (internal_error); the server log has the details. Bad input never answers 500. */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The database cannot be written (storage_unavailable); retry after the Retry-After header. */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    signOut: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Done; no content. */
            204: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
            /** @description Invalid input (validation_error), naming the offending field. */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Missing or invalid bearer token (or, for a webhook, a bad or missing signature). */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description A run token may not do this, a member may not (an admin's act, or any executor in a body), or an owner rule forbids it. */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description An id names nothing. */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The request conflicts with the resource's state. */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The body is over the size limit (OFFICE_BODY_LIMIT_BYTES, default 1 MiB). */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The body is not JSON. */
            415: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The Host header names a host this server does not serve (OFFICE_ALLOWED_HOSTS). */
            421: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description An internal fault (internal_error); the server log has the details. Bad input never answers 500. */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The database cannot be written (storage_unavailable); retry after the Retry-After header. */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
}
