// The way the host's owners reach the chat view: made before the view exists (the owners are
// built first), attached once the view is, and silent until then.
import type { ChatEvent, HostMessageBody } from "../../shared/protocol";
import type { ChatViewProvider } from "./chat-webview-provider";

export class ViewPort {
  private view: ChatViewProvider | undefined;

  attach(view: ChatViewProvider): void {
    this.view = view;
  }

  send(body: HostMessageBody): void {
    this.view?.send(body);
  }

  sendEvent(event: ChatEvent): void {
    this.view?.sendEvent(event);
  }

  /** A full snapshot of the chat on screen (after a switch). */
  sendSnapshot(): void {
    this.view?.sendSnapshot();
  }

  /** Shows the view and waits until its webview is ready. */
  async reveal(): Promise<void> {
    await this.view?.reveal();
  }
}
