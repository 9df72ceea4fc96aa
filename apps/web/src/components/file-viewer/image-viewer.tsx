import { Box } from '@mantine/core';
import {
  type PointerEvent as ReactPointerEvent,
  useCallback,
  useEffect,
  useLayoutEffect,
  useMemo,
  useRef,
  useState,
} from 'react';
import { useTranslation } from 'react-i18next';
import { clamp, distance, midpoint, type Point, ZOOM_STEP } from './zoom';
import { ZoomBar } from './zoom-bar';

interface View {
  scale: number;
  x: number;
  y: number;
}

interface Size {
  w: number;
  h: number;
}

const START: View = { scale: 1, x: 0, y: 0 };

/**
 * An image fitted to the screen and never drawn larger than its pixels at first; two fingers (or
 * the wheel, or the buttons) zoom around where they are, one finger or the mouse pans a zoomed
 * image, and the image never leaves the frame.
 */
export function ImageViewer({ url, title, height }: { url: string; title: string; height: string }) {
  const { t } = useTranslation('results');
  const frame = useRef<HTMLDivElement>(null);
  const [natural, setNatural] = useState<Size | null>(null);
  const [box, setBox] = useState<Size>({ w: 0, h: 0 });
  const [asked, setView] = useState<View>(START);
  const viewNow = useRef(asked);
  const pointers = useRef(new Map<number, Point>());
  const gesture = useRef<{ view: View; points: Point[] } | null>(null);

  useEffect(() => {
    const element = frame.current;
    if (!element) return;
    const observer = new ResizeObserver(() => setBox({ w: element.clientWidth, h: element.clientHeight }));
    observer.observe(element);
    return () => observer.disconnect();
  }, []);

  // The scale at which the whole image shows, at most its own pixels; zoom goes to 4 times that, or
  // to twice the image's pixels when that is more.
  const fit = natural && box.w > 0 ? Math.min(box.w / natural.w, box.h / natural.h, 1) : 1;
  const base = useMemo(() => (natural ? { w: natural.w * fit, h: natural.h * fit } : null), [natural, fit]);
  const maxScale = Math.max(4, 2 / fit);

  /** Keeps the zoomed image over the frame: it can be moved only as far as it overflows. */
  const bounded = useCallback(
    (next: View): View => {
      if (!base) return START;
      const scale = clamp(next.scale, 1, maxScale);
      const spareX = Math.max(0, (base.w * scale - box.w) / 2);
      const spareY = Math.max(0, (base.h * scale - box.h) / 2);
      return { scale, x: clamp(next.x, -spareX, spareX), y: clamp(next.y, -spareY, spareY) };
    },
    [base, box.w, box.h, maxScale],
  );

  /** Zooms to `scale` keeping the image point under `anchor` (frame coordinates) where it is. */
  const zoomAt = useCallback(
    (from: View, scale: number, anchor: Point | null, moved: Point | null = null): View => {
      const center = { x: box.w / 2, y: box.h / 2 };
      const at = anchor ?? center;
      const to = moved ?? at;
      const target = clamp(scale, 1, maxScale);
      const qx = (at.x - center.x - from.x) / from.scale;
      const qy = (at.y - center.y - from.y) / from.scale;
      return bounded({ scale: target, x: to.x - center.x - target * qx, y: to.y - center.y - target * qy });
    },
    [bounded, box.w, box.h, maxScale],
  );

  const local = (event: { clientX: number; clientY: number }): Point => {
    const rect = frame.current?.getBoundingClientRect();
    return { x: event.clientX - (rect?.left ?? 0), y: event.clientY - (rect?.top ?? 0) };
  };

  const restart = (current: View) => {
    gesture.current = { view: current, points: [...pointers.current.values()] };
  };

  const onPointerDown = (event: ReactPointerEvent<HTMLDivElement>) => {
    event.currentTarget.setPointerCapture(event.pointerId);
    pointers.current.set(event.pointerId, local(event));
    restart(viewNow.current);
  };

  const onPointerMove = (event: ReactPointerEvent<HTMLDivElement>) => {
    if (!pointers.current.has(event.pointerId) || !gesture.current) return;
    pointers.current.set(event.pointerId, local(event));
    const now = [...pointers.current.values()];
    const { view: from, points } = gesture.current;
    if (now.length >= 2 && points.length >= 2) {
      const startDistance = distance(points[0]!, points[1]!);
      if (startDistance < 1) return;
      const scale = (from.scale * distance(now[0]!, now[1]!)) / startDistance;
      setView(zoomAt(from, scale, midpoint(points[0]!, points[1]!), midpoint(now[0]!, now[1]!)));
    } else if (now.length === 1 && points.length === 1) {
      setView(bounded({ ...from, x: from.x + now[0]!.x - points[0]!.x, y: from.y + now[0]!.y - points[0]!.y }));
    }
  };

  const onPointerEnd = (event: ReactPointerEvent<HTMLDivElement>) => {
    pointers.current.delete(event.pointerId);
    // The fingers left continue the gesture from where the image now is.
    restart(viewNow.current);
  };

  // The wheel zooms around the pointer; a listener of our own, since React's is passive.
  useEffect(() => {
    const element = frame.current;
    if (!element) return;
    const onWheel = (event: WheelEvent) => {
      event.preventDefault();
      const factor = Math.exp(-event.deltaY / 300);
      setView((current) => zoomAt(current, current.scale * factor, local(event)));
    };
    element.addEventListener('wheel', onWheel, { passive: false });
    return () => element.removeEventListener('wheel', onWheel);
  }, [zoomAt]);

  // What is shown stays inside the frame, also after the frame changed size (a phone turned).
  const view = bounded(asked);
  useLayoutEffect(() => {
    viewNow.current = view;
  });

  return (
    <Box>
      <ZoomBar
        zoom={view.scale * fit}
        canZoomIn={view.scale < maxScale}
        canZoomOut={view.scale > 1}
        onZoomIn={() => setView((current) => zoomAt(current, current.scale * ZOOM_STEP, null))}
        onZoomOut={() => setView((current) => zoomAt(current, current.scale / ZOOM_STEP, null))}
        onFit={() => setView(START)}
        fitLabel={t('viewer.fitScreen')}
      />
      <div
        ref={frame}
        data-testid="image-frame"
        onPointerDown={onPointerDown}
        onPointerMove={onPointerMove}
        onPointerUp={onPointerEnd}
        onPointerCancel={onPointerEnd}
        onDoubleClick={(event) =>
          setView((current) => (current.scale > 1 ? START : zoomAt(current, 2.5, local(event))))
        }
        style={{
          height,
          position: 'relative',
          overflow: 'hidden',
          touchAction: 'none',
          background: 'var(--mantine-color-gray-1)',
          cursor: view.scale > 1 ? 'grab' : 'zoom-in',
          userSelect: 'none',
        }}
      >
        <img
          src={url}
          alt={title}
          draggable={false}
          data-testid="viewer-image"
          onLoad={(event) =>
            setNatural({ w: event.currentTarget.naturalWidth || 1, h: event.currentTarget.naturalHeight || 1 })
          }
          style={{
            position: 'absolute',
            left: '50%',
            top: '50%',
            width: base ? base.w : undefined,
            height: base ? base.h : undefined,
            maxWidth: base ? undefined : '100%',
            maxHeight: base ? undefined : '100%',
            transform: `translate(-50%, -50%) translate(${view.x}px, ${view.y}px) scale(${view.scale})`,
            transformOrigin: 'center',
            // Pixels stay sharp squares once the image is larger than its own resolution.
            imageRendering: view.scale * fit > 1 ? 'pixelated' : 'auto',
          }}
        />
      </div>
    </Box>
  );
}
