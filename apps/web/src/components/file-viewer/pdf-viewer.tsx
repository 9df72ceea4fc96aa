import { Alert, Box, Loader, Text, UnstyledButton } from '@mantine/core';
import { useEffect, useLayoutEffect, useRef, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { openPdf, type PDFDocumentProxy, type RenderTask } from './pdfjs';
import { clamp, distance, midpoint, type Point, ZOOM_STEP } from './zoom';
import { ZoomBar } from './zoom-bar';
import { usePhone } from '../../lib/use-phone';

const MIN_ZOOM = 0.5;
const MAX_ZOOM = 4;
/** Pages are fitted to the width, but no wider than this on a large screen (a line stays readable). */
const MAX_FIT_WIDTH = 900;
/** iOS Safari draws nothing on a canvas above about 16.7 million pixels. */
const MAX_CANVAS_PIXELS = 16_000_000;
const PAGE_GAP = 12;
const THUMB_WIDTH = 84;

/** One page drawn on a canvas at `width` CSS pixels, sharp on the screen's pixel density, once near the view. */
function PageCanvas({
  doc,
  number,
  width,
  ratio,
  label,
}: {
  doc: PDFDocumentProxy;
  number: number;
  width: number;
  ratio: number;
  /** The page's name; none for a thumbnail, whose button is named. */
  label?: string;
}) {
  const canvas = useRef<HTMLCanvasElement>(null);
  const [near, setNear] = useState(false);
  const [drawn, setDrawn] = useState(false);

  useEffect(() => {
    const element = canvas.current;
    if (!element) return;
    const observer = new IntersectionObserver((entries) => setNear(entries.some((e) => e.isIntersecting)), {
      rootMargin: '100% 0px',
    });
    observer.observe(element);
    return () => observer.disconnect();
  }, []);

  useEffect(() => {
    const element = canvas.current;
    if (!near || !element || width <= 0) return;
    let task: RenderTask | null = null;
    let cancelled = false;
    // A pinch changes the width many times a second: the page is drawn again once it stops.
    const timer = window.setTimeout(async () => {
      const page = await doc.getPage(number);
      if (cancelled) return;
      const natural = page.getViewport({ scale: 1 });
      const density = Math.min(window.devicePixelRatio || 1, 3);
      let scale = (width / natural.width) * density;
      const pixels = natural.width * natural.height * scale * scale;
      if (pixels > MAX_CANVAS_PIXELS) scale *= Math.sqrt(MAX_CANVAS_PIXELS / pixels);
      const viewport = page.getViewport({ scale });
      // Drawn off screen first, so the page on screen never blanks while the new one is drawn.
      const offscreen = document.createElement('canvas');
      offscreen.width = Math.floor(viewport.width);
      offscreen.height = Math.floor(viewport.height);
      task = page.render({ canvas: offscreen, viewport });
      try {
        await task.promise;
      } catch {
        return; // cancelled by a newer size
      }
      if (cancelled) return;
      element.width = offscreen.width;
      element.height = offscreen.height;
      element.getContext('2d')?.drawImage(offscreen, 0, 0);
      setDrawn(true);
    }, 120);
    return () => {
      cancelled = true;
      window.clearTimeout(timer);
      task?.cancel();
    };
  }, [doc, number, width, near]);

  return (
    <canvas
      ref={canvas}
      role={label ? 'img' : undefined}
      aria-label={label}
      aria-hidden={label ? undefined : true}
      data-canvas-page={number}
      data-drawn={drawn ? 'true' : 'false'}
      style={{
        display: 'block',
        width,
        height: width * ratio,
        background: 'white',
        boxShadow: '0 1px 3px rgba(0, 0, 0, 0.25)',
      }}
    />
  );
}

/**
 * Reports in pdf.js instead of the browser's own PDF viewer, which phones do not have inside a page
 * (Android Chrome shows nothing in an iframe, iOS Safari only the first page): pages fitted to the
 * width, zoom by buttons or two fingers, page thumbnails to jump, the page in view read out.
 */
export default function PdfViewer({ blob, title, height }: { blob: Blob; title: string; height: string }) {
  const { t } = useTranslation('results');
  const phone = usePhone();
  const [doc, setDoc] = useState<PDFDocumentProxy | null>(null);
  const [ratios, setRatios] = useState<number[]>([]);
  const [failed, setFailed] = useState(false);
  const [zoom, setZoom] = useState(1);
  const [current, setCurrent] = useState(1);
  const [frameWidth, setFrameWidth] = useState(0);
  const scroller = useRef<HTMLDivElement>(null);
  const pending = useRef<{ from: number; anchor: Point } | null>(null);

  useEffect(() => {
    let cancelled = false;
    let opened: PDFDocumentProxy | null = null;
    void (async () => {
      try {
        opened = await openPdf(await blob.arrayBuffer());
        const sizes = await Promise.all(
          Array.from({ length: opened.numPages }, async (_, i) => {
            const viewport = (await opened!.getPage(i + 1)).getViewport({ scale: 1 });
            return viewport.height / viewport.width;
          }),
        );
        if (cancelled) return;
        setRatios(sizes);
        setDoc(opened);
      } catch {
        if (!cancelled) setFailed(true);
      }
    })();
    return () => {
      cancelled = true;
      void opened?.destroy();
    };
  }, [blob]);

  useEffect(() => {
    const element = scroller.current;
    if (!element) return;
    const observer = new ResizeObserver(() => setFrameWidth(element.clientWidth));
    observer.observe(element);
    return () => observer.disconnect();
  }, [doc]);

  // The page in view: the one whose middle band the scroller's middle crosses.
  useEffect(() => {
    const element = scroller.current;
    if (!element || !doc) return;
    const observer = new IntersectionObserver(
      (entries) => {
        for (const entry of entries)
          if (entry.isIntersecting) setCurrent(Number((entry.target as HTMLElement).dataset.page));
      },
      { root: element, rootMargin: '-50% 0px -50% 0px' },
    );
    element.querySelectorAll('[data-page]').forEach((page) => observer.observe(page));
    return () => observer.disconnect();
  }, [doc]);

  const fitWidth = Math.max(0, Math.min(frameWidth - 2 * PAGE_GAP, MAX_FIT_WIDTH));
  const pageWidth = Math.round(fitWidth * zoom);

  /** Zooms keeping the point under `anchor` (scroller coordinates) where it is on screen. */
  const zoomTo = (next: number, anchor?: Point) => {
    const element = scroller.current;
    const target = clamp(next, MIN_ZOOM, MAX_ZOOM);
    if (element && target !== zoom)
      pending.current = { from: zoom, anchor: anchor ?? { x: element.clientWidth / 2, y: element.clientHeight / 2 } };
    setZoom(target);
  };

  useLayoutEffect(() => {
    const element = scroller.current;
    const change = pending.current;
    pending.current = null;
    if (!element || !change) return;
    const factor = zoom / change.from;
    element.scrollLeft = (element.scrollLeft + change.anchor.x) * factor - change.anchor.x;
    element.scrollTop = (element.scrollTop + change.anchor.y) * factor - change.anchor.y;
  }, [zoom]);

  // Two fingers zoom the pages (the browser would zoom the whole app); one finger scrolls as usual.
  const zoomNow = useRef(zoom);
  const zoomToNow = useRef(zoomTo);
  useLayoutEffect(() => {
    zoomNow.current = zoom;
    zoomToNow.current = zoomTo;
  });
  useEffect(() => {
    const element = scroller.current;
    if (!element) return;
    let start: { distance: number; zoom: number } | null = null;
    const points = (event: TouchEvent): [Point, Point] | null => {
      if (event.touches.length !== 2) return null;
      const rect = element.getBoundingClientRect();
      const [a, b] = [event.touches[0]!, event.touches[1]!];
      return [
        { x: a.clientX - rect.left, y: a.clientY - rect.top },
        { x: b.clientX - rect.left, y: b.clientY - rect.top },
      ];
    };
    const onStart = (event: TouchEvent) => {
      const pair = points(event);
      start = pair ? { distance: distance(pair[0], pair[1]), zoom: zoomNow.current } : null;
    };
    const onMove = (event: TouchEvent) => {
      const pair = points(event);
      if (!pair || !start || start.distance < 1) return;
      event.preventDefault();
      zoomToNow.current((start.zoom * distance(pair[0], pair[1])) / start.distance, midpoint(pair[0], pair[1]));
    };
    const onEnd = (event: TouchEvent) => {
      if (event.touches.length < 2) start = null;
    };
    const onWheel = (event: WheelEvent) => {
      // A trackpad's pinch arrives as a wheel with ctrlKey, as does Ctrl + wheel.
      if (!event.ctrlKey) return;
      event.preventDefault();
      const rect = element.getBoundingClientRect();
      zoomToNow.current(zoomNow.current * Math.exp(-event.deltaY / 200), {
        x: event.clientX - rect.left,
        y: event.clientY - rect.top,
      });
    };
    element.addEventListener('touchstart', onStart, { passive: true });
    element.addEventListener('touchmove', onMove, { passive: false });
    element.addEventListener('touchend', onEnd);
    element.addEventListener('touchcancel', onEnd);
    element.addEventListener('wheel', onWheel, { passive: false });
    return () => {
      element.removeEventListener('touchstart', onStart);
      element.removeEventListener('touchmove', onMove);
      element.removeEventListener('touchend', onEnd);
      element.removeEventListener('touchcancel', onEnd);
      element.removeEventListener('wheel', onWheel);
    };
  }, [doc]);

  const showPage = (number: number) => {
    scroller.current
      ?.querySelector(`[data-page="${number}"]`)
      ?.scrollIntoView({ block: 'start', inline: 'nearest', behavior: 'instant' });
    setCurrent(number);
  };

  if (failed) return <Alert color="red">{t('viewer.pdfFailed')}</Alert>;
  const pages = ratios.length;

  const thumbnails = doc && pages > 1 && (
    <nav
      aria-label={t('viewer.pages')}
      data-testid="pdf-thumbnails"
      style={{
        display: 'flex',
        flexDirection: phone ? 'row' : 'column',
        gap: 8,
        overflow: 'auto',
        padding: 8,
        flex: phone ? '0 0 auto' : `0 0 ${THUMB_WIDTH + 24}px`,
        background: 'var(--mantine-color-gray-2)',
      }}
    >
      {ratios.map((ratio, i) => (
        <UnstyledButton
          key={i}
          className="touch-target"
          onClick={() => showPage(i + 1)}
          aria-label={t('viewer.goToPage', { page: i + 1 })}
          aria-current={current === i + 1 ? 'page' : undefined}
          style={{
            flex: '0 0 auto',
            padding: 3,
            borderRadius: 4,
            outline: current === i + 1 ? '3px solid var(--mantine-color-medical-6)' : undefined,
            textAlign: 'center',
          }}
        >
          <PageCanvas doc={doc} number={i + 1} width={phone ? 56 : THUMB_WIDTH} ratio={ratio} />
          <Text size="xs" mt={2} aria-hidden="true">
            {i + 1}
          </Text>
        </UnstyledButton>
      ))}
    </nav>
  );

  return (
    <Box>
      <ZoomBar
        zoom={zoom}
        canZoomIn={zoom < MAX_ZOOM}
        canZoomOut={zoom > MIN_ZOOM}
        onZoomIn={() => zoomTo(zoom * ZOOM_STEP)}
        onZoomOut={() => zoomTo(zoom / ZOOM_STEP)}
        onFit={() => zoomTo(1)}
        fitLabel={t('viewer.fitWidth')}
      >
        {pages > 0 && (
          <Text size="sm" c="dimmed" data-testid="pdf-page-indicator">
            {t('viewer.pageOf', { page: current, count: pages })}
          </Text>
        )}
      </ZoomBar>
      <div
        style={{
          display: 'flex',
          flexDirection: phone ? 'column-reverse' : 'row',
          height,
          border: '1px solid var(--mantine-color-gray-4)',
        }}
      >
        {thumbnails}
        <div
          ref={scroller}
          data-testid="pdf-pages"
          tabIndex={0}
          role="region"
          aria-label={title}
          style={{
            flex: '1 1 auto',
            minHeight: 0,
            minWidth: 0,
            overflow: 'auto',
            background: 'var(--mantine-color-gray-3)',
            touchAction: 'pan-x pan-y',
          }}
        >
          {!doc ? (
            <Box p="xl" ta="center">
              <Loader size="sm" aria-label={t('viewer.loading')} />
            </Box>
          ) : (
            <div
              style={{
                display: 'flex',
                flexDirection: 'column',
                alignItems: pageWidth + 2 * PAGE_GAP <= frameWidth ? 'center' : 'flex-start',
                gap: PAGE_GAP,
                padding: PAGE_GAP,
                width: 'max-content',
                minWidth: '100%',
                boxSizing: 'border-box',
              }}
            >
              {ratios.map((ratio, i) => (
                <div key={i} data-page={i + 1}>
                  <PageCanvas
                    doc={doc}
                    number={i + 1}
                    width={pageWidth}
                    ratio={ratio}
                    label={t('viewer.pageOf', { page: i + 1, count: pages })}
                  />
                </div>
              ))}
            </div>
          )}
        </div>
      </div>
    </Box>
  );
}
