// The panels about the workspace's files above the composer: "also restore files?" after Edit or
// Retry, and the changed-files list of Pi's pending changes.
import type { ViewModel } from "./client";
import { FilesOfferPanel } from "./files-offer";
import { PendingChangesPanel } from "./pending-changes";

export function FilePanels({ view }: { view: Pick<ViewModel, "filesOffer" | "pendingChanges"> }) {
  return (
    <>
      {view.filesOffer && <FilesOfferPanel key={view.filesOffer.id} offer={view.filesOffer} />}
      <PendingChangesPanel state={view.pendingChanges} />
    </>
  );
}
