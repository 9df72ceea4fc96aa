import { App, AppOptions, Index, Point2D, ToolConfig, ViewConfig, WindowLevel } from 'dwv';

export type ViewerTool = 'Scroll' | 'WindowLevel' | 'ZoomAndPan' | 'Ruler';

/** What the screen shows of the viewport's state. */
export interface ViewportState {
  /** 0-based slice (or frame) shown. */
  index: number;
  count: number;
  center: number | null;
  width: number | null;
  zoom: number;
  /** The image pixel (column, row) at the centre of the view: zooming keeps it, panning moves it. */
  centre: [number, number] | null;
  inverted: boolean;
  playing: boolean;
  /** 0-100 while loading. */
  progress: number;
  /** A first image is on screen. */
  rendered: boolean;
  loaded: boolean;
  failed: boolean;
}

/**
 * dwv's App behind a small surface: load a series, scroll, window, zoom, invert, cine, measure.
 * One finger (or the mouse) does what the chosen tool does, except that with the scroll tool a
 * vertical swipe goes through the slices; two fingers always pinch to zoom and drag to pan; the
 * wheel goes through the slices (with the zoom tool, it zooms).
 */
export class DwvViewport {
  private readonly app = new App();
  private tool: ViewerTool = 'Scroll';
  private state: ViewportState = {
    index: 0,
    count: 0,
    center: null,
    width: null,
    zoom: 1,
    centre: null,
    inverted: false,
    playing: false,
    progress: 0,
    rendered: false,
    loaded: false,
    failed: false,
  };
  /** The touch gesture under way: one finger scrolling slices, or two pinching and panning. */
  private gesture:
    | { kind: 'swipe'; y: number; carry: number }
    | { kind: 'pinch'; distance: number; x: number; y: number }
    | { kind: 'none' } = { kind: 'none' };
  /** Pixels of vertical swipe per slice. */
  private static readonly SWIPE_STEP = 12;

  /** Wheel movement not yet worth a slice (a trackpad sends many small deltas). */
  private wheelSum = 0;

  /**
   * The wheel goes through the slices one per notch, turned towards the user for the next one,
   * as ↓, Page Down and a swipe up do (dwv's own wheel goes the other way). With the zoom tool
   * the wheel is dwv's, which zooms.
   */
  private readonly onWheel = (event: WheelEvent) => {
    if (!this.state.loaded || this.tool === 'ZoomAndPan') return;
    event.stopPropagation();
    event.preventDefault();
    // A mouse notch: wheelDeltaY ±120 (Chromium, Firefox) whatever deltaY says (4 px on a Mac);
    // anything smaller is a trackpad, summed until it makes a notch (as dwv does).
    const notch = (event as WheelEvent & { wheelDeltaY?: number }).wheelDeltaY;
    this.wheelSum +=
      notch === undefined ? Math.sign(event.deltaY) : Math.abs(notch) > 45 ? -Math.sign(notch) : event.deltaY / 60;
    if (Math.abs(this.wheelSum) < 1) return;
    const step = Math.sign(this.wheelSum);
    this.wheelSum = 0;
    this.scrollBy(step);
  };

  private readonly onTouchStart = (event: TouchEvent) => {
    if (!this.state.loaded) return;
    if (event.touches.length >= 2) {
      const [a, b] = [event.touches[0]!, event.touches[1]!];
      this.gesture = {
        kind: 'pinch',
        distance: Math.hypot(a.clientX - b.clientX, a.clientY - b.clientY),
        x: (a.clientX + b.clientX) / 2,
        y: (a.clientY + b.clientY) / 2,
      };
    } else if (this.tool === 'Scroll') {
      this.gesture = { kind: 'swipe', y: event.touches[0]!.clientY, carry: 0 };
    } else {
      return; // One finger with another tool: dwv's tool (window, pan, ruler) takes it.
    }
    // Ours alone: dwv's layers never see it (nor start cine on a long press).
    event.stopPropagation();
  };

  private readonly onTouchMove = (event: TouchEvent) => {
    const g = this.gesture;
    if (g.kind === 'none') return;
    event.stopPropagation();
    event.preventDefault();
    if (g.kind === 'swipe' && event.touches.length === 1) {
      // Finger up: the next slice, as content follows the finger.
      const moved = g.carry + (g.y - event.touches[0]!.clientY);
      const steps = Math.trunc(moved / DwvViewport.SWIPE_STEP);
      this.gesture = { ...g, y: event.touches[0]!.clientY, carry: moved - steps * DwvViewport.SWIPE_STEP };
      if (steps) this.scrollBy(steps);
    } else if (g.kind === 'pinch' && event.touches.length >= 2) {
      const [a, b] = [event.touches[0]!, event.touches[1]!];
      const distance = Math.hypot(a.clientX - b.clientX, a.clientY - b.clientY);
      const x = (a.clientX + b.clientX) / 2;
      const y = (a.clientY + b.clientY) / 2;
      const box = this.container.getBoundingClientRect();
      this.pan(x - g.x, y - g.y);
      if (g.distance > 0 && distance > 0) this.zoomAt(distance / g.distance - 1, x - box.left, y - box.top);
      this.gesture = { kind: 'pinch', distance, x, y };
    }
  };

  private readonly onTouchEnd = (event: TouchEvent) => {
    if (this.gesture.kind === 'none') return;
    event.stopPropagation();
    // Lifting one of two fingers ends the pinch; the other finger does nothing until lifted.
    if (event.touches.length === 0) this.gesture = { kind: 'none' };
  };

  constructor(
    private readonly container: HTMLElement,
    divId: string,
    private readonly onChange: (state: ViewportState) => void,
  ) {
    const options = new AppOptions({ '*': [new ViewConfig(divId)] });
    options.tools = {
      Scroll: new ToolConfig(),
      WindowLevel: new ToolConfig(),
      ZoomAndPan: new ToolConfig(),
      Draw: new ToolConfig(['Ruler']),
    };
    this.app.init(options);
    this.app.addEventListener('loadprogress', (event: { loaded: number }) => this.set({ progress: event.loaded }));
    this.app.addEventListener('load', () => {
      this.set({ loaded: true, progress: 100 });
      this.applyTool();
      this.refresh();
    });
    this.app.addEventListener('renderend', () => {
      if (!this.state.rendered) this.set({ rendered: true });
    });
    this.app.addEventListener('error', () => this.set({ failed: true }));
    this.app.addEventListener('positionchange', () => this.refresh());
    this.app.addEventListener('wlchange', () => this.refresh());
    this.app.addEventListener('zoomchange', () => this.refresh());
    // Capture phase: decided before dwv's own listeners on the layers see the wheel or touch.
    container.addEventListener('wheel', this.onWheel, { capture: true, passive: false });
    container.addEventListener('touchstart', this.onTouchStart, { capture: true });
    container.addEventListener('touchmove', this.onTouchMove, { capture: true, passive: false });
    container.addEventListener('touchend', this.onTouchEnd, { capture: true });
    container.addEventListener('touchcancel', this.onTouchEnd, { capture: true });
  }

  private set(changes: Partial<ViewportState>) {
    this.state = { ...this.state, ...changes };
    this.onChange(this.state);
  }

  /**
   * The image's view layer. Not dwv's active layer: once a ruler is drawn the draw layer becomes
   * active, and window, zoom, pan and invert must still act on the image.
   */
  private viewLayer() {
    return this.app.getActiveLayerGroup()?.getBaseViewLayer();
  }

  private controller() {
    return this.viewLayer()?.getViewController();
  }

  /**
   * The dimension the slider, wheel and keys go through: the slices of a series, or the frames
   * (dimension 3) of a single multi-frame instance such as an ultrasound clip.
   */
  private scrollDim(): number {
    const vc = this.controller();
    if (!vc) return 2;
    const size = vc.getImageSize();
    const dim = vc.getScrollDimIndex();
    return size.get(dim) > 1 || size.length() < 4 || !size.moreThanOne(3) ? dim : 3;
  }

  /** The view's centre in display pixels. */
  private middle(): Point2D {
    return new Point2D(this.container.clientWidth / 2, this.container.clientHeight / 2);
  }

  /** Reads position, window and zoom back from dwv after any change. */
  private refresh() {
    const vc = this.controller();
    if (!vc) return;
    const size = vc.getImageSize();
    const scrollDim = this.scrollDim();
    const wl = vc.canWindowLevel() ? vc.getWindowLevel() : null;
    const scale = this.app.getActiveLayerGroup()?.getAddedScale();
    const layer = this.viewLayer();
    const centre = layer?.displayToPlaneIndex(this.middle());
    this.set({
      centre: centre ? [centre.get(0) ?? 0, centre.get(1) ?? 0] : null,
      index: vc.getCurrentIndex().get(scrollDim) ?? 0,
      count: size.get(scrollDim) ?? 1,
      center: wl ? Math.round(wl.center) : null,
      width: wl ? Math.round(wl.width) : null,
      zoom: scale ? Math.round(scale.x * 100) / 100 : 1,
      inverted: vc.getColourMap() === 'invPlain',
      playing: vc.isPlaying(),
    });
  }

  /** `headers`' Accept asks for the files in a transfer syntax dwv decodes where needed. */
  load(urls: string[], headers: Record<string, string>) {
    this.set({ loaded: false, rendered: false, failed: false, progress: 0, index: 0, count: urls.length });
    this.app.reset();
    this.app.loadURLs(urls, {
      requestHeaders: Object.entries(headers).map(([name, value]) => ({ name, value })),
      batchSize: 12,
      forceLoader: 'dicom',
    });
  }

  private applyTool() {
    if (this.tool === 'Ruler') {
      this.app.setTool('Draw');
      this.app.setToolFeatures({ shapeName: 'Ruler' });
    } else {
      this.app.setTool(this.tool);
    }
  }

  setTool(tool: ViewerTool) {
    this.tool = tool;
    if (this.state.loaded) this.applyTool();
  }

  scrollTo(index: number) {
    const vc = this.controller();
    if (!vc) return;
    const dim = this.scrollDim();
    const values = vc.getCurrentIndex().getValues();
    values[dim] = Math.max(0, Math.min(this.state.count - 1, index));
    vc.setCurrentIndex(new Index(values));
    this.refresh();
  }

  scrollBy(step: number) {
    this.scrollTo(this.state.index + step);
  }

  setWindow(center: number, width: number) {
    this.controller()?.setWindowLevel(new WindowLevel(center, width));
    this.refresh();
  }

  invert() {
    const vc = this.controller();
    if (!vc) return;
    vc.setColourMap(vc.getColourMap() === 'invPlain' ? 'plain' : 'invPlain');
    this.refresh();
  }

  /** Zooms by `step` (0.25: a quarter larger) about the centre of the view. */
  zoom(step: number) {
    const middle = this.middle();
    this.zoomAt(step, middle.getX(), middle.getY());
  }

  /** Zooms about a point of the view (display pixels): the image under it stays under it. */
  private zoomAt(step: number, x: number, y: number) {
    const group = this.app.getActiveLayerGroup();
    const layer = group?.getBaseViewLayer();
    const vc = layer?.getViewController();
    if (!group || !layer || !vc) return;
    const centre = vc.getPlanePositionFromPlanePoint(layer.displayToMainPlanePos(new Point2D(x, y)));
    group.addScale(step, centre);
    group.draw();
    this.refresh();
  }

  /** Moves the image by display pixels. */
  private pan(dx: number, dy: number) {
    const group = this.app.getActiveLayerGroup();
    const layer = group?.getBaseViewLayer();
    const vc = layer?.getViewController();
    if (!group || !layer || !vc || (!dx && !dy)) return;
    const plane = layer.displayToPlaneScale(new Point2D(dx, dy));
    const offset = vc.getOffset3DFromPlaneOffset({ x: plane.getX(), y: plane.getY() });
    group.addTranslation({ x: offset.getX(), y: offset.getY(), z: offset.getZ() });
    group.draw();
    this.refresh();
  }

  togglePlay() {
    const vc = this.controller();
    if (!vc) return;
    if (vc.isPlaying()) vc.stop();
    else vc.play();
    this.refresh();
  }

  reset() {
    const vc = this.controller();
    if (vc?.isPlaying()) vc.stop();
    if (vc && vc.getColourMap() === 'invPlain') vc.setColourMap('plain');
    this.app.resetDisplay();
    this.refresh();
  }

  resize() {
    this.app.onResize();
  }

  destroy() {
    this.container.removeEventListener('wheel', this.onWheel, { capture: true });
    this.container.removeEventListener('touchstart', this.onTouchStart, { capture: true });
    this.container.removeEventListener('touchmove', this.onTouchMove, { capture: true });
    this.container.removeEventListener('touchend', this.onTouchEnd, { capture: true });
    this.container.removeEventListener('touchcancel', this.onTouchEnd, { capture: true });
    this.controller()?.stop();
    this.app.abortAllLoads();
    this.app.reset();
  }
}
