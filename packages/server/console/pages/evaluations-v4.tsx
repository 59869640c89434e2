/**
 * v4 evaluations (docs/evaluations.md "v4 evaluations"): the account's evaluations a page at a
 * time (`GET /v4/evaluations`), and an evaluation's page: its status and counts, its async jobs
 * (the build and the judge, `view=AsyncJobs`) read again while one is not done, its metrics as
 * bars, its test case results a page at a time with a filter by label status, and **annotation**
 * as an annotator does it: claim the next task (`POST …/claim-task`), the result's test case and
 * output, a control per question of the config's question set (`view=EvaluationConfig`), the
 * answers sent (`PATCH …/test-case-results/{id}`), then the next claim ("nothing to do" when
 * the claim answers `null`).
 */
import type { EvaluationV4WithViews, Question, ResultAnswers, TaskV4, TestCaseResultV4WithViews } from "@platform-kit/schema"
import { useEffect, useRef, useState } from "preact/hooks"
import { BarChart } from "../charts.js"
import { Link } from "../router.js"
import { inAccount, type Session } from "../session.js"
import { Empty, ErrorBox, Loading, Pager, Show, useLoad, usePolled, when } from "../ui.js"
import { StatusBadge } from "./evaluations.js"

const pageSize = 20

export const EvaluationsV4Page = ({ session }: { readonly session: Session }) => {
  const [page, setPage] = useState(1)
  const evaluations = useLoad(
    () => session.client.evaluationsV4.list({ urlParams: { page, limit: pageSize, ...inAccount(session) } }),
    [page]
  )
  return (
    <section aria-labelledby="evaluations-v4-title">
      <p><Link to="/evaluations">← Evaluations (v5)</Link></p>
      <h1 id="evaluations-v4-title">v4 evaluations</h1>
      <p class="muted">
        Test case results of an application variant, judged by the built-in judge and annotated by people (docs/evaluations.md
        "v4 evaluations"; made through the API).
      </p>
      <Show loaded={evaluations} what="v4 evaluations">
        {(result) =>
          result.items.length === 0
            ? <Empty>No v4 evaluations in this account yet: the recipe of docs/evaluations.md makes one.</Empty>
            : (
              <>
                <table>
                  <caption class="sr-only">v4 evaluations of the account</caption>
                  <thead>
                    <tr>
                      <th scope="col">Name</th>
                      <th scope="col">Status</th>
                      <th scope="col">Results completed</th>
                      <th scope="col">Created</th>
                    </tr>
                  </thead>
                  <tbody>
                    {result.items.map((evaluation) => (
                      <tr key={evaluation.id}>
                        <td><Link to={`/evaluations-v4/${encodeURIComponent(evaluation.id)}`}>{evaluation.name}</Link></td>
                        <td><StatusBadge status={evaluation.status} /></td>
                        <td>{evaluation.completed_test_case_result_count} of {evaluation.total_test_case_result_count}</td>
                        <td>{when(evaluation.created_at)}</td>
                      </tr>
                    ))}
                  </tbody>
                </table>
                <Pager page={page} pageSize={pageSize} total={result.total_item_count} onPage={setPage} />
              </>
            )}
      </Show>
    </section>
  )
}

const jobDone = (status: string) => status === "Completed" || status === "Failed" || status === "Canceled"

export const EvaluationV4Page = ({ session, evaluationId }: { readonly session: Session; readonly evaluationId: string }) => {
  const path = { evaluation_v4_id: evaluationId }
  // an answer sent loads the counts, the metrics and the results again
  const [answered, setAnswered] = useState(0)
  const evaluation = usePolled(
    () => session.client.evaluationsV4.get({ path, urlParams: { view: ["AsyncJobs", "EvaluationConfig"] } }),
    [evaluationId, answered],
    (evaluation) => (evaluation.async_jobs ?? []).some((job) => !jobDone(job.status)),
    500
  )
  // the evaluation as last loaded once its jobs were done: what the sections below work on. It stays while the
  // evaluation is loaded again (after an answer), so that the annotation in progress is not unmounted
  const [ready, setReady] = useState<EvaluationV4WithViews | undefined>(undefined)
  useEffect(() => {
    if (evaluation.state === "done" && !(evaluation.value.async_jobs ?? []).some((job) => !jobDone(job.status))) setReady(evaluation.value)
  }, [evaluation])
  return (
    <section aria-labelledby="evaluation-v4-title">
      <p><Link to="/evaluations-v4">← v4 evaluations</Link></p>
      {/* loaded again after an answer: the last evaluation stays on screen meanwhile */}
      <Show loaded={evaluation.state === "loading" && ready !== undefined ? { state: "done", value: ready } : evaluation} what="the evaluation">
        {(evaluation) => (
          <>
            <h1 id="evaluation-v4-title">{evaluation.name}</h1>
            <dl class="facts">
              <dt>Status</dt>
              <dd><StatusBadge status={evaluation.status} /></dd>
              <dt>Results completed</dt>
              <dd>{evaluation.completed_test_case_result_count} of {evaluation.total_test_case_result_count}</dd>
              <dt>Description</dt>
              <dd>{evaluation.description || "—"}</dd>
              <dt>Created</dt>
              <dd>{when(evaluation.created_at)}</dd>
            </dl>
            <progress
              max={Math.max(evaluation.total_test_case_result_count, 1)}
              value={evaluation.completed_test_case_result_count}
              aria-label="Results completed"
            />
            <Jobs evaluation={evaluation} />
          </>
        )}
      </Show>
      {ready !== undefined && (
        <>
          <Metrics key={`metrics-${answered}`} session={session} evaluationId={evaluationId} />
          <Annotate session={session} evaluation={ready} onAnswered={() => setAnswered((n) => n + 1)} />
          <Results key={`results-${answered}`} session={session} evaluationId={evaluationId} />
        </>
      )}
    </section>
  )
}

/** The evaluation's async jobs (a builder's build, the judge) with their states. */
const Jobs = ({ evaluation }: { readonly evaluation: EvaluationV4WithViews }) => {
  const jobs = evaluation.async_jobs ?? []
  if (jobs.length === 0) return null
  return (
    <div class="stack">
      <h2>Jobs</h2>
      <table>
        <caption class="sr-only">Async jobs of the evaluation</caption>
        <thead>
          <tr>
            <th scope="col">Job</th>
            <th scope="col">State</th>
            <th scope="col">Progress</th>
            <th scope="col">Updated</th>
          </tr>
        </thead>
        <tbody>
          {jobs.map((job) => (
            <tr key={job.id}>
              <td>{job.job_type ?? job.id}</td>
              <td><StatusBadge status={job.status} /></td>
              <td>{job.progress === null ? "—" : Object.entries(job.progress).map(([key, value]) => `${key} ${String(value)}`).join(", ")}</td>
              <td>{when(job.updated_at)}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  )
}

/** The evaluation's metrics (`evaluation-metrics`) as bars. */
const Metrics = ({ session, evaluationId }: { readonly session: Session; readonly evaluationId: string }) => {
  const metrics = useLoad(() => session.client.evaluationsV4.evaluationMetrics({ path: { evaluation_v4_id: evaluationId } }), [evaluationId])
  return (
    <div class="stack">
      <h2>Metrics</h2>
      <Show loaded={metrics} what="the metrics">
        {(metrics) => (
          <BarChart
            title="Test case results"
            max={metrics.num_total_test_cases}
            bars={[
              { label: "All", value: metrics.num_total_test_cases },
              { label: "Labelled", value: metrics.num_test_cases_labeled },
              { label: "Flagged", value: metrics.num_test_cases_flagged },
              { label: "Approved", value: metrics.num_test_cases_approved }
            ]}
          />
        )}
      </Show>
    </div>
  )
}

type LabelFilter = "all" | "PENDING" | "COMPLETED" | "FAILED"

/** An answer as text: a choice's label, several, or the value. */
const answerText = (value: unknown): string =>
  Array.isArray(value)
    ? value.map(answerText).join(", ")
    : typeof value === "object" && value !== null && "label" in value
    ? String((value as { label: unknown }).label)
    : String(value)

/** The output of a result, as text. */
const outputText = (result: { readonly test_case_evaluation_data: { readonly generation_output: unknown } }) => {
  const output = result.test_case_evaluation_data.generation_output
  return typeof output === "string" ? output : JSON.stringify(output)
}

/** The test case results a page at a time, with their answers; the label status filter applies within the page. */
const Results = ({ session, evaluationId }: { readonly session: Session; readonly evaluationId: string }) => {
  const [page, setPage] = useState(1)
  const [filter, setFilter] = useState<LabelFilter>("all")
  const results = useLoad(
    () =>
      session.client.evaluationsV4.listResults({
        path: { evaluation_v4_id: evaluationId },
        urlParams: { page, limit: pageSize, view: ["AnnotationResults"] }
      }),
    [evaluationId, page]
  )
  return (
    <div class="stack">
      <h2>Test case results</h2>
      <div class="row">
        <label for="results-filter">Label status</label>
        <select id="results-filter" value={filter} onChange={(event) => setFilter(event.currentTarget.value as LabelFilter)}>
          <option value="all">All</option>
          <option value="PENDING">Pending</option>
          <option value="COMPLETED">Completed</option>
          <option value="FAILED">Failed</option>
        </select>
      </div>
      <Show loaded={results} what="the results">
        {(list) => {
          const shown = list.items.filter((result) => filter === "all" || result.label_status === filter)
          return (
            <>
              {shown.length === 0
                ? <Empty>{list.items.length === 0 ? "No test case results yet." : "No result of this page has that label status."}</Empty>
                : (
                  <table>
                    <caption class="sr-only">Test case results of the evaluation</caption>
                    <thead>
                      <tr>
                        <th scope="col">Output</th>
                        <th scope="col">Label status</th>
                        <th scope="col">Answers</th>
                        <th scope="col">Completed</th>
                      </tr>
                    </thead>
                    <tbody>
                      {shown.map((result) => (
                        <tr key={result.id}>
                          <td>{outputText(result)}</td>
                          <td><StatusBadge status={result.label_status} /></td>
                          <td>
                            {(result.annotation_results ?? []).length === 0
                              ? "—"
                              : (result.annotation_results ?? []).map((answer) => (
                                <div key={answer.id}>
                                  {answer.annotation_type === "llm_auto" ? "judge" : "person"}: {answerText(answer.selected_choice)}
                                </div>
                              ))}
                          </td>
                          <td>{when(result.completed_at)}</td>
                        </tr>
                      ))}
                    </tbody>
                  </table>
                )}
              <Pager page={page} pageSize={pageSize} total={list.total_item_count} onPage={setPage} />
            </>
          )
        }}
      </Show>
    </div>
  )
}

type Claim =
  | { readonly state: "idle" }
  | { readonly state: "claiming" }
  | { readonly state: "none" }
  | { readonly state: "claimed"; readonly task: TaskV4 }
  | { readonly state: "failed"; readonly error: unknown }

/**
 * Annotation as an annotator does it: claim the next task, answer the questions of the
 * evaluation's question set for its result, send, and the next task is claimed.
 */
const Annotate = (
  { session, evaluation, onAnswered }: {
    readonly session: Session
    readonly evaluation: EvaluationV4WithViews
    readonly onAnswered: () => void
  }
) => {
  const [claim, setClaim] = useState<Claim>({ state: "idle" })
  const [answeredCount, setAnsweredCount] = useState(0)
  const questions = evaluation.evaluation_config_expanded?.question_set.questions ?? []
  const claimNext = (skipCurrent: boolean) => {
    setClaim({ state: "claiming" })
    session.client.evaluationsV4.claimTask({ path: { evaluation_v4_id: evaluation.id }, payload: skipCurrent ? { skip_current: true } : {} })
      .then(
        (task) => setClaim(task === null ? { state: "none" } : { state: "claimed", task }),
        (error: unknown) => setClaim({ state: "failed", error })
      )
  }
  return (
    <div class="card stack" aria-labelledby="annotate-title">
      <h2 id="annotate-title">Annotate</h2>
      <p class="muted">
        Claim the next test case result to annotate, as an annotator would; it is yours for the claim's time (30 minutes unless the server says
        otherwise).
      </p>
      {questions.length === 0 && <p>This evaluation has no question set to answer (its config names none).</p>}
      <div class="row">
        <button type="button" class="primary" disabled={claim.state === "claiming"} onClick={() => claimNext(false)}>
          {claim.state === "claimed" ? "Claim again" : "Claim the next task"}
        </button>
        {claim.state === "claimed" && <button type="button" onClick={() => claimNext(true)}>Skip this one</button>}
        {answeredCount > 0 && <span class="muted">{answeredCount} answered in this session</span>}
      </div>
      <div role="status" aria-live="polite">
        {claim.state === "claiming" && <Loading what="the next task" />}
        {claim.state === "none" && <p class="state empty" data-testid="nothing-to-do">Nothing to do: no task is free in this evaluation.</p>}
      </div>
      {claim.state === "failed" && <ErrorBox error={claim.error} />}
      {claim.state === "claimed" && (
        <AnswerForm
          key={claim.task.id}
          session={session}
          evaluationId={evaluation.id}
          task={claim.task}
          questions={questions}
          onSent={() => {
            setAnsweredCount((n) => n + 1)
            onAnswered()
            claimNext(false)
          }}
        />
      )}
    </div>
  )
}

/** A question's answer while it is being given: text for the inputs, or the values chosen. */
type Draft = string | ReadonlyArray<string>

/** The answers to send, by question id; a question left blank is left out (a required one stops the send). */
const answersOf = (questions: ReadonlyArray<Question>, drafts: Record<string, Draft>): ResultAnswers | string => {
  const answers: Record<string, string | number | boolean | ReadonlyArray<string>> = {}
  for (const question of questions) {
    const draft = drafts[question.id] ?? ""
    if (typeof draft !== "string") {
      if (draft.length > 0) answers[question.id] = draft
      else if (question.required === true) return `Answer “${question.title}”`
      continue
    }
    if (draft.trim() === "") {
      if (question.required === true) return `Answer “${question.title}”`
      continue
    }
    if (question.type === "rating" || question.type === "number") {
      const value = Number(draft)
      if (!Number.isFinite(value)) return `“${question.title}” takes a number`
      answers[question.id] = value
    } else answers[question.id] = draft
  }
  return answers as ResultAnswers
}

const AnswerForm = (
  { session, evaluationId, task, questions, onSent }: {
    readonly session: Session
    readonly evaluationId: string
    readonly task: TaskV4
    readonly questions: ReadonlyArray<Question>
    readonly onSent: () => void
  }
) => {
  const path = { evaluation_v4_id: evaluationId, test_case_result_id: task.task_entity_id }
  const result = useLoad(() => session.client.evaluationsV4.getResult({ path, urlParams: { view: ["TestCaseVersion"] } }), [task.id])
  const [drafts, setDrafts] = useState<Record<string, Draft>>({})
  const [busy, setBusy] = useState(false)
  const [failure, setFailure] = useState<unknown>(undefined)
  // the time spent on this task, sent with the answers (`time_spent_labeling_s`)
  const opened = useRef(Date.now())
  useEffect(() => {
    opened.current = Date.now()
  }, [task.id])
  const set = (id: string, draft: Draft) => setDrafts({ ...drafts, [id]: draft })
  return (
    <form
      class="stack annotation"
      aria-label="Answer the task"
      onSubmit={(event) => {
        event.preventDefault()
        const answers = answersOf(questions, drafts)
        if (typeof answers === "string") {
          setFailure(new Error(answers))
          return
        }
        setBusy(true)
        setFailure(undefined)
        session.client.evaluationsV4.updateResult({
          path,
          payload: { result: answers, time_spent_labeling_s: Math.round((Date.now() - opened.current) / 1000) }
        }).then(onSent, (error: unknown) => {
          setFailure(error)
          setBusy(false)
        })
      }}
    >
      <Show loaded={result} what="the test case result">
        {(result) => <TestCaseShown result={result} />}
      </Show>
      {questions.map((question) => (
        <QuestionControl key={question.id} question={question} draft={drafts[question.id] ?? ""} onChange={(draft) => set(question.id, draft)} />
      ))}
      {failure !== undefined && <ErrorBox error={failure} />}
      <div class="row">
        <button type="submit" class="primary" disabled={busy || questions.length === 0}>{busy ? "Sending…" : "Send answers"}</button>
      </div>
    </form>
  )
}

/** The result's test case (its input and expected output) and the output to judge. */
const TestCaseShown = ({ result }: { readonly result: TestCaseResultV4WithViews }) => {
  const data = (result.test_case_version as { readonly test_case_data?: Record<string, unknown> } | null | undefined)?.test_case_data ?? {}
  return (
    <dl class="facts" data-testid="task">
      {Object.entries(data).filter(([, value]) => value !== null && value !== undefined).map(([key, value]) => [
        <dt key={`${key}-t`}>{key.replaceAll("_", " ")}</dt>,
        <dd key={`${key}-d`}>{typeof value === "string" ? value : JSON.stringify(value)}</dd>
      ])}
      <dt>output</dt>
      <dd data-testid="task-output">{outputText(result)}</dd>
    </dl>
  )
}

/** The control a question's type calls for: choices (radio buttons, a select, or checkboxes when `multi`), a scale, a number, text. */
const QuestionControl = (
  { question, draft, onChange }: { readonly question: Question; readonly draft: Draft; readonly onChange: (draft: Draft) => void }
) => {
  const id = `question-${question.id}`
  const text = typeof draft === "string" ? draft : ""
  const legend = (
    <legend>
      {question.title}
      {question.required === true && <span aria-hidden="true"> *</span>}
      <span class="muted"> {question.prompt}</span>
    </legend>
  )
  if (question.type === "categorical") {
    const choices = question.choices ?? []
    if (question.multi === true) {
      const chosen = typeof draft === "string" ? [] : draft
      return (
        <fieldset class="question">
          {legend}
          {choices.map((choice) => (
            <label key={choice.value} class="choice">
              <input
                type="checkbox"
                checked={chosen.includes(choice.value)}
                onChange={(event) =>
                  onChange(event.currentTarget.checked ? [...chosen, choice.value] : chosen.filter((value) => value !== choice.value))}
              />{" "}
              {choice.label}
            </label>
          ))}
        </fieldset>
      )
    }
    if (question.dropdown === true) {
      return (
        <div class="question">
          <label for={id}>{question.title} <span class="muted">{question.prompt}</span></label>
          <select id={id} value={text} onChange={(event) => onChange(event.currentTarget.value)}>
            <option value="">Choose…</option>
            {choices.map((choice) => <option key={choice.value} value={choice.value}>{choice.label}</option>)}
          </select>
        </div>
      )
    }
    return (
      <fieldset class="question">
        {legend}
        {choices.map((choice) => (
          <label key={choice.value} class="choice">
            <input type="radio" name={id} value={choice.value} checked={text === choice.value} onChange={() => onChange(choice.value)} />{" "}
            {choice.label}
          </label>
        ))}
      </fieldset>
    )
  }
  if (question.type === "rating") {
    const steps = question.ratingOptions?.scaleSteps ?? 5
    return (
      <fieldset class="question">
        {legend}
        <div class="row">
          <span class="muted">{question.ratingOptions?.minLabel ?? "1"}</span>
          {Array.from({ length: steps }, (_, i) => String(i + 1)).map((step) => (
            <label key={step} class="choice">
              <input type="radio" name={id} value={step} checked={text === step} onChange={() => onChange(step)} /> {step}
            </label>
          ))}
          <span class="muted">{question.ratingOptions?.maxLabel ?? String(steps)}</span>
        </div>
      </fieldset>
    )
  }
  const label = <label for={id}>{question.title} <span class="muted">{question.prompt}</span></label>
  if (question.type === "number") {
    return (
      <div class="question">
        {label}
        <input
          id={id}
          type="number"
          class="narrow"
          min={question.numberOptions?.min ?? undefined}
          max={question.numberOptions?.max ?? undefined}
          value={text}
          onInput={(event) => onChange(event.currentTarget.value)}
        />
      </div>
    )
  }
  // free text, a timestamp ("mm:ss" or seconds, as text) and a form (its answer as JSON text)
  const limit = question.freeTextOptions?.characterLimit
  return (
    <div class="question">
      {label}
      {question.type === "free_text" || question.type === "form"
        ? (
          <textarea
            id={id}
            rows={3}
            value={text}
            minLength={limit?.min ?? undefined}
            maxLength={limit?.max ?? undefined}
            onInput={(event) => onChange(event.currentTarget.value)}
          />
        )
        : <input id={id} value={text} placeholder="00:00" onInput={(event) => onChange(event.currentTarget.value)} />}
    </div>
  )
}
