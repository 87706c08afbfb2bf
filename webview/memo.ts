// `memo` without preact/compat: a component that skips rendering while its props are the same
// references. Settled chat items and chunks are immutable, so reference equality is exact.
import { createElement, type Component, type ComponentType, type FunctionComponent } from "preact";

export function memo<P extends object>(component: FunctionComponent<P>): FunctionComponent<P> {
  function shouldUpdate(this: Component<P>, next: P): boolean {
    const prev = this.props as Record<string, unknown>;
    const props = next as Record<string, unknown>;
    for (const key in prev) if (key !== "children" && !(key in props)) return true;
    for (const key in props) if (key !== "children" && prev[key] !== props[key]) return true;
    return false;
  }
  function Memo(this: Component<P>, props: P) {
    this.shouldComponentUpdate = shouldUpdate;
    return createElement(component as ComponentType<P>, props);
  }
  Memo.displayName = `Memo(${component.displayName ?? component.name})`;
  return Memo as FunctionComponent<P>;
}
