// The user's message: its images and text, with the branch controls (edit, fork) around it.
import { useContext } from "preact/hooks";
import type { UserItem } from "../../src/shared/chat-items";
import { UserMessage } from "../branch-controls";
import { ImageBaseContext, MessageImages } from "../composer/composer-images";
import { MessageHeading } from "./message-heading";

export function UserCard({ item }: { item: UserItem }) {
  const imageBase = useContext(ImageBaseContext);
  // Each user message starts a turn: its heading (h2) is where a screen-reader user jumps to.
  return (
    <article class="item user" data-item={item.id} aria-labelledby={`heading-${item.id}`}>
      <MessageHeading id={item.id} level={2} who="You" timestamp={item.timestamp} />
      <UserMessage item={item}>
        {item.images && <MessageImages images={item.images} base={imageBase} />}
        {item.text !== "" && <div class="user-text">{item.text}</div>}
      </UserMessage>
    </article>
  );
}
