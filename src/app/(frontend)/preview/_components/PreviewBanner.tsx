import { RefreshOnSave } from './RefreshOnSave'

/** Shown only to staff in draft mode: they see the newest drafts, and the way out. */
export const PreviewBanner = ({ returnTo }: { returnTo: string }) => (
  <>
    <RefreshOnSave />
    <div className="preview-banner" role="status">
      <span>
        <strong>Preview.</strong> You are seeing unpublished drafts; readers see the published version.
      </span>
      <a href={`/preview/exit?path=${encodeURIComponent(returnTo)}`}>Exit preview</a>
    </div>
  </>
)
