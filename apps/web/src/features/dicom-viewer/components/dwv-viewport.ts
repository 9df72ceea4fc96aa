import { App, AppOptions, Index, Point3D, ToolConfig, ViewConfig, WindowLevel } from 'dwv';

export type ViewerTool = 'Scroll' | 'WindowLevel' | 'ZoomAndPan' | 'Ruler';

/** What the screen shows of the viewport's state. */
export interface ViewportState {
  /** 0-based slice (or frame) shown. */
  index: number;
  count: number;
  center: number | null;
  width: number | null;
  zoom: number;
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
 * One finger (or the mouse) does what the chosen tool does; two fingers always pinch-zoom and pan.
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
    inverted: false,
    playing: false,
    progress: 0,
    rendered: false,
    loaded: false,
    failed: false,
  };
  private readonly onTwoFingers = (event: TouchEvent) => {
    if (event.touches.length >= 2 && this.state.loaded) this.app.setTool('ZoomAndPan');
  };
  private readonly onTouchEnd = (event: TouchEvent) => {
    if (event.touches.length === 0 && this.state.loaded) this.applyTool();
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
    // Capture phase: decided before dwv's own listeners on the layers see the touch.
    container.addEventListener('touchstart', this.onTwoFingers, { capture: true, passive: true });
    container.addEventListener('touchend', this.onTouchEnd, { capture: true, passive: true });
  }

  private set(changes: Partial<ViewportState>) {
    this.state = { ...this.state, ...changes };
    this.onChange(this.state);
  }

  private controller() {
    return this.app.getActiveLayerGroup()?.getActiveViewLayer()?.getViewController();
  }

  /** Reads position, window and zoom back from dwv after any change. */
  private refresh() {
    const vc = this.controller();
    if (!vc) return;
    const size = vc.getImageSize();
    const scrollDim = vc.getScrollDimIndex();
    const wl = vc.canWindowLevel() ? vc.getWindowLevel() : null;
    const scale = this.app.getActiveLayerGroup()?.getAddedScale();
    this.set({
      index: vc.getCurrentIndex().get(scrollDim) ?? 0,
      count: size.get(scrollDim) ?? 1,
      center: wl ? Math.round(wl.center) : null,
      width: wl ? Math.round(wl.width) : null,
      zoom: scale ? Math.round(scale.x * 100) / 100 : 1,
      inverted: vc.getColourMap() === 'invPlain',
      playing: vc.isPlaying(),
    });
  }

  load(urls: string[], headers: Record<string, string>) {
    this.set({ loaded: false, rendered: false, failed: false, progress: 0, index: 0, count: urls.length });
    this.app.reset();
    this.app.loadURLs(urls, {
      requestHeaders: Object.entries(headers).map(([name, value]) => ({ name, value })),
      batchSize: 12,
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
    const dim = vc.getScrollDimIndex();
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

  zoom(step: number) {
    const group = this.app.getActiveLayerGroup();
    const vc = this.controller();
    if (!group || !vc) return;
    const center = vc.getCurrentPosition();
    group.addScale(step, new Point3D(center.get(0) ?? 0, center.get(1) ?? 0, center.get(2) ?? 0));
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
    this.container.removeEventListener('touchstart', this.onTwoFingers, { capture: true });
    this.container.removeEventListener('touchend', this.onTouchEnd, { capture: true });
    this.controller()?.stop();
    this.app.abortAllLoads();
    this.app.reset();
  }
}
