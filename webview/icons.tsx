// Small inline SVG icons (no icon font: the codicons package is not a dependency).
// They draw with `currentColor`, so they follow the theme like text does.
import type { JSX } from "preact";

type IconProps = { class?: string };

function svg(path: JSX.Element, props: IconProps): JSX.Element {
  return (
    <svg class={`icon ${props.class ?? ""}`} viewBox="0 0 16 16" width="16" height="16" aria-hidden="true" focusable="false">
      {path}
    </svg>
  );
}

const stroke = { fill: "none", stroke: "currentColor", "stroke-width": "1.4", "stroke-linecap": "round", "stroke-linejoin": "round" } as const;

export const PlusIcon = (p: IconProps) => svg(<path {...stroke} d="M8 3v10M3 8h10" />, p);
export const HistoryIcon = (p: IconProps) =>
  svg(
    <g {...stroke}>
      <path d="M2.5 8a5.5 5.5 0 1 0 1.6-3.9" />
      <path d="M2.5 2.5v2.2h2.2M8 5v3.2l2.2 1.3" />
    </g>,
    p,
  );
export const TrashIcon = (p: IconProps) => svg(<path {...stroke} d="M3 4.5h10M6.5 4.5V3h3v1.5M4.5 4.5l.6 8.5h5.8l.6-8.5" />, p);
export const SendIcon = (p: IconProps) => svg(<path {...stroke} d="M2.5 8 13.5 2.5 10.5 13.5 7.5 8.8zM7.5 8.8l6-6.3" />, p);
export const StopIcon = (p: IconProps) => svg(<rect x="4" y="4" width="8" height="8" rx="1.2" fill="currentColor" />, p);
export const CloseIcon = (p: IconProps) => svg(<path {...stroke} d="M4 4l8 8M12 4l-8 8" />, p);
export const CheckIcon = (p: IconProps) => svg(<path {...stroke} d="M3 8.5l3.2 3L13 4.5" />, p);
export const ErrorIcon = (p: IconProps) =>
  svg(
    <g {...stroke}>
      <circle cx="8" cy="8" r="5.8" />
      <path d="M6 6l4 4M10 6l-4 4" />
    </g>,
    p,
  );
export const WarningIcon = (p: IconProps) => svg(<path {...stroke} d="M8 2.5 14 13H2zM8 6.5v3M8 11.4v.1" />, p);
export const InfoIcon = (p: IconProps) =>
  svg(
    <g {...stroke}>
      <circle cx="8" cy="8" r="5.8" />
      <path d="M8 7.3v3.7M8 5v.1" />
    </g>,
    p,
  );
export const ImageIcon = (p: IconProps) => svg(<path {...stroke} d="M2.5 3.5h11v9h-11zM2.5 10.5l3-3 3 3 2-2 3 3M10.5 6.2v.1" />, p);
export const FileIcon = (p: IconProps) => svg(<path {...stroke} d="M4 2h5l3 3v9H4zM9 2v3h3" />, p);
export const ToolIcon = (p: IconProps) =>
  svg(<path {...stroke} d="M10.2 2.6a3 3 0 0 0-3.6 3.9L2.7 10.4a1.3 1.3 0 0 0 1.9 1.9l3.9-3.9a3 3 0 0 0 3.9-3.6l-1.8 1.8-1.6-.3-.3-1.6z" />, p);
export const ChevronDownIcon = (p: IconProps) => svg(<path {...stroke} d="M4 6l4 4 4-4" />, p);
export const ArrowDownIcon = (p: IconProps) => svg(<path {...stroke} d="M8 3v10M4 9l4 4 4-4" />, p);
export const DiffIcon = (p: IconProps) => svg(<path {...stroke} d="M5 2v6M2 5h6M2 12h6M10 3h4v10h-4" />, p);
export const ShieldIcon = (p: IconProps) => svg(<path {...stroke} d="M8 2 13 4v4c0 3-2.2 5.2-5 6-2.8-.8-5-3-5-6V4z" />, p);

/** A spinning ring (CSS animation, honours prefers-reduced-motion). */
export const Spinner = (p: IconProps) => (
  <svg class={`icon spinner ${p.class ?? ""}`} viewBox="0 0 16 16" width="16" height="16" aria-hidden="true" focusable="false">
    <circle cx="8" cy="8" r="5.5" fill="none" stroke="currentColor" stroke-width="1.6" stroke-opacity="0.25" />
    <path d="M8 2.5a5.5 5.5 0 0 1 5.5 5.5" fill="none" stroke="currentColor" stroke-width="1.6" stroke-linecap="round" />
  </svg>
);
