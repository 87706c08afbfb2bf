// The hidden heading that names a message for screen readers ("You, 10:42"; "Pi, 10:43"): the
// user's message is a turn's h2, Pi's answer its h3.
import { clockTime } from "../format";

/** The heading that names a message ("You, 10:42"): hidden on screen, where the layout says who wrote it. */
export function MessageHeading({ id, level, who, timestamp }: { id: string; level: 2 | 3; who: string; timestamp: number }) {
  const time = clockTime(timestamp);
  const Tag = level === 2 ? "h2" : "h3";
  return (
    <Tag id={`heading-${id}`} class="sr-only">
      {time ? `${who}, ${time}` : who}
    </Tag>
  );
}
