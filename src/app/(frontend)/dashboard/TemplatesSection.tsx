import { downloadTemplate } from './actions'
import type { ListedTemplate } from './data'
import { ErrorBox, RowAction } from './parts'
import { TEMPLATE_CATEGORY_WORDS } from './words'

type Props = { templates: ListedTemplate[]; more: boolean; error?: string }

/** The template library (feature `templates`): each template's own Download button, no JavaScript needed. */
export const TemplatesSection = ({ templates, more, error }: Props) => (
  <section className="card" id="templates" aria-labelledby="templates-heading">
    <h2 id="templates-heading">Template library</h2>
    <ErrorBox code={error} fallback="The template download failed; please try again." />
    {templates.length === 0 ? (
      <div className="empty">
        <p>
          No templates are published yet. New ones appear here as soon as they are: dashboards, marketing pages,
          sign-in, billing and email.
        </p>
      </div>
    ) : (
      <>
        <p>Ready-made pages to drop into the kit. Each download link is signed for you and works for a few minutes.</p>
        <ul className="item-list" data-testid="templates">
          {templates.map((template) => (
            <li key={template.id}>
              <div className="item-main">
                <strong>{template.name}</strong>{' '}
                <span className="muted">· {TEMPLATE_CATEGORY_WORDS[template.category]}</span>
                {template.description ? <p className="item-detail">{template.description}</p> : null}
              </div>
              <RowAction
                action={downloadTemplate}
                name="template"
                value={template.id}
                label="Download"
                description={`Download ${template.name}`}
              />
            </li>
          ))}
        </ul>
        {more ? <p className="muted">The newest {templates.length} templates are listed.</p> : null}
      </>
    )}
  </section>
)
