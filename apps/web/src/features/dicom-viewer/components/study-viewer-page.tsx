import '@mantine/core/styles/Kbd.css';
import '@mantine/core/styles/Progress.css';
import '@mantine/core/styles/ScrollArea.css';
import '@mantine/core/styles/Slider.css';
import {
  ActionIcon,
  Alert,
  Box,
  Button,
  Group,
  Kbd,
  Loader,
  Menu,
  Popover,
  Progress,
  ScrollArea,
  SegmentedControl,
  Slider,
  Stack,
  Text,
  Tooltip,
  UnstyledButton,
} from '@mantine/core';
import { useCallback, useEffect, useId, useRef, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { useNavigate, useParams, useSearchParams } from 'react-router';
import { AuthorizedImage, authHeaders, DICOMWEB } from '../../../components/dicom-images';
import { saveFile } from '../../../components/results-api';
import { formatCalendarDate } from '../../../lib/dates';
import { usePageTitle } from '../../../lib/use-page-title';
import { instanceAccept, instanceUrl, useStudyInfo, useStudySeries } from '../api/study-api';
import { DwvViewport, type ViewerTool, type ViewportState } from './dwv-viewport';

/** Window presets (width, centre in HU) radiologists use for CT. */
export const WINDOW_PRESETS = {
  softTissue: { width: 400, center: 40 },
  lung: { width: 1500, center: -600 },
  bone: { width: 1800, center: 400 },
  brain: { width: 80, center: 40 },
} as const;
type PresetName = keyof typeof WINDOW_PRESETS;
const PRESET_KEYS: Record<string, PresetName> = { '1': 'softTissue', '2': 'lung', '3': 'bone', '4': 'brain' };

const TOOL_KEYS: Record<string, ViewerTool> = { s: 'Scroll', w: 'WindowLevel', z: 'ZoomAndPan', m: 'Ruler' };

function Icon({ d }: { d: string }) {
  return (
    <svg
      width={18}
      height={18}
      viewBox="0 0 24 24"
      fill="none"
      stroke="currentColor"
      strokeWidth={2}
      aria-hidden="true"
    >
      <path d={d} />
    </svg>
  );
}
const ICONS = {
  back: 'M15 18l-6-6 6-6',
  invert: 'M12 3a9 9 0 100 18V3z M12 3a9 9 0 010 18',
  reset: 'M3 12a9 9 0 109-9 9.7 9.7 0 00-6.7 2.7L3 8 M3 3v5h5',
  zoomIn: 'M11 4a7 7 0 100 14 7 7 0 000-14z M21 21l-5-5 M11 8v6 M8 11h6',
  zoomOut: 'M11 4a7 7 0 100 14 7 7 0 000-14z M21 21l-5-5 M8 11h6',
  play: 'M7 4l13 8-13 8z',
  pause: 'M7 4h3v16H7z M14 4h3v16h-3z',
  overlay: 'M4 6h16 M4 12h10 M4 18h7',
  fullscreen: 'M4 9V4h5 M20 9V4h-5 M4 15v5h5 M20 15v5h-5',
  download: 'M12 4v12 M7 11l5 5 5-5 M5 20h14',
  keyboard: 'M3 6h18v12H3z M7 10h.01 M11 10h.01 M15 10h.01 M7 14h10',
};

function ToolbarButton({
  label,
  icon,
  onClick,
  active,
}: {
  label: string;
  icon: string;
  onClick: () => void;
  active?: boolean;
}) {
  return (
    <Tooltip label={label}>
      <ActionIcon
        variant={active ? 'filled' : 'default'}
        size="lg"
        aria-label={label}
        aria-pressed={active}
        onClick={onClick}
      >
        <Icon d={icon} />
      </ActionIcon>
    </Tooltip>
  );
}

/** The DICOM viewer (issue: imaging results): a study's series, scrolled, windowed, zoomed and measured. */
export default function StudyViewerPage() {
  const { t } = useTranslation(['results', 'common']);
  const { studyUid = '' } = useParams();
  const [params] = useSearchParams();
  const navigate = useNavigate();
  const examTitle = params.get('exam');
  usePageTitle(examTitle ?? t('dicom.title'));

  const series = useStudySeries(studyUid);
  const [seriesUid, setSeriesUid] = useState<string | null>(null);
  const activeSeries = seriesUid ?? series.data?.[0]?.uid ?? null;
  const info = useStudyInfo(studyUid, activeSeries);

  const divId = `dwv-${useId().replace(/[^a-zA-Z0-9]/g, '')}`;
  const frameRef = useRef<HTMLDivElement>(null);
  const viewport = useRef<DwvViewport | null>(null);
  const [state, setState] = useState<ViewportState | null>(null);
  const [tool, setTool] = useState<ViewerTool>('Scroll');
  const [overlay, setOverlay] = useState(true);
  const [downloading, setDownloading] = useState(false);

  useEffect(() => {
    const frame = frameRef.current;
    if (!frame) return;
    const v = new DwvViewport(frame, divId, setState);
    viewport.current = v;
    const resize = () => v.resize();
    window.addEventListener('resize', resize);
    return () => {
      window.removeEventListener('resize', resize);
      v.destroy();
      viewport.current = null;
    };
  }, [divId]);

  const instances = info.data?.instances;
  useEffect(() => {
    if (!activeSeries || !instances?.length || !viewport.current) return;
    viewport.current.load(
      instances.map((i) => instanceUrl(studyUid, activeSeries, i.sopUid)),
      { ...authHeaders(), accept: instanceAccept(instances) },
    );
  }, [studyUid, activeSeries, instances]);

  useEffect(() => viewport.current?.setTool(tool), [tool]);

  const fullscreen = useCallback(() => {
    const frame = frameRef.current?.parentElement;
    if (!frame) return;
    if (document.fullscreenElement) void document.exitFullscreen();
    else void frame.requestFullscreen?.().then(() => viewport.current?.resize());
  }, []);

  const preset = useCallback((name: PresetName) => {
    const p = WINDOW_PRESETS[name];
    viewport.current?.setWindow(p.center, p.width);
  }, []);

  useEffect(() => {
    const onKey = (event: KeyboardEvent) => {
      const target = event.target as HTMLElement | null;
      // The tool selector's radios keep focus after a mouse choice: the shortcuts still work
      // there, except the arrows and space that move through its choices.
      const radio = target instanceof HTMLInputElement && target.type === 'radio';
      if (target && !radio && ['INPUT', 'TEXTAREA', 'SELECT'].includes(target.tagName)) return;
      if (event.ctrlKey || event.metaKey || event.altKey) return;
      const v = viewport.current;
      if (!v) return;
      const key = event.key.toLowerCase();
      if (radio && (key.startsWith('arrow') || key === ' ')) return;
      const actions: Record<string, () => void> = {
        arrowup: () => v.scrollBy(-1),
        arrowleft: () => v.scrollBy(-1),
        arrowdown: () => v.scrollBy(1),
        arrowright: () => v.scrollBy(1),
        pageup: () => v.scrollBy(-10),
        pagedown: () => v.scrollBy(10),
        home: () => v.scrollTo(0),
        end: () => v.scrollTo(Number.MAX_SAFE_INTEGER),
        i: () => v.invert(),
        r: () => v.reset(),
        o: () => setOverlay((o) => !o),
        f: fullscreen,
        ' ': () => v.togglePlay(),
        '+': () => v.zoom(0.25),
        '=': () => v.zoom(0.25),
        '-': () => v.zoom(-0.25),
      };
      const action =
        actions[key] ??
        (PRESET_KEYS[key] ? () => preset(PRESET_KEYS[key]!) : undefined) ??
        (TOOL_KEYS[key] ? () => setTool(TOOL_KEYS[key]!) : undefined);
      if (!action) return;
      event.preventDefault();
      action();
    };
    window.addEventListener('keydown', onKey);
    return () => window.removeEventListener('keydown', onKey);
  }, [fullscreen, preset]);

  const download = async () => {
    setDownloading(true);
    try {
      const response = await fetch(`${DICOMWEB}/studies/${studyUid}`, {
        headers: { ...authHeaders(), accept: 'application/zip' },
      });
      if (!response.ok) throw new Error(String(response.status));
      const disposition = response.headers.get('content-disposition') ?? '';
      const fileName = /filename="([^"]+)"/.exec(disposition)?.[1] ?? 'estudo-dicom.zip';
      saveFile({ blob: await response.blob(), fileName });
    } finally {
      setDownloading(false);
    }
  };

  const s = state;
  const study = info.data?.study;
  const multi = (s?.count ?? 0) > 1;
  const failed = series.isError || info.isError || s?.failed;

  return (
    <Stack gap={6} p={{ base: 4, sm: 'md' }} data-testid="study-viewer">
      <Group gap="xs" wrap="nowrap" justify="space-between">
        <Group gap="xs" wrap="nowrap" style={{ minWidth: 0 }}>
          <ToolbarButton label={t('dicom.back')} icon={ICONS.back} onClick={() => void navigate(-1)} />
          <Text fw={700} truncate component="h1" size="lg" m={0}>
            {examTitle ?? t('dicom.title')}
          </Text>
        </Group>
        {/* On a phone the title keeps the width: the download is an icon there. */}
        <Button
          visibleFrom="sm"
          size="compact-sm"
          variant="light"
          style={{ flexShrink: 0 }}
          leftSection={<Icon d={ICONS.download} />}
          loading={downloading}
          onClick={() => void download()}
        >
          {t('dicom.download')}
        </Button>
        <Tooltip label={t('dicom.download')}>
          <ActionIcon
            hiddenFrom="sm"
            variant="light"
            size="lg"
            style={{ flexShrink: 0 }}
            aria-label={t('dicom.download')}
            loading={downloading}
            onClick={() => void download()}
          >
            <Icon d={ICONS.download} />
          </ActionIcon>
        </Tooltip>
      </Group>

      <Group gap={6} wrap="wrap" role="toolbar" aria-label={t('dicom.tools')}>
        <SegmentedControl
          size="xs"
          w={{ base: '100%', sm: 'auto' }}
          value={tool}
          onChange={(value) => setTool(value as ViewerTool)}
          data={[
            { value: 'Scroll', label: t('dicom.tool.scroll') },
            { value: 'WindowLevel', label: t('dicom.tool.windowLevel') },
            { value: 'ZoomAndPan', label: t('dicom.tool.zoomPan') },
            { value: 'Ruler', label: t('dicom.tool.ruler') },
          ]}
          aria-label={t('dicom.tools')}
        />
        <Menu position="bottom-start">
          <Menu.Target>
            <Button size="compact-sm" variant="default" data-testid="presets">
              {t('dicom.presets')}
            </Button>
          </Menu.Target>
          <Menu.Dropdown>
            {(Object.keys(WINDOW_PRESETS) as PresetName[]).map((name, i) => (
              <Menu.Item key={name} onClick={() => preset(name)} rightSection={<Kbd size="xs">{i + 1}</Kbd>}>
                {t(`dicom.preset.${name}`)}
              </Menu.Item>
            ))}
          </Menu.Dropdown>
        </Menu>
        <ToolbarButton
          label={t('dicom.invert')}
          icon={ICONS.invert}
          active={s?.inverted}
          onClick={() => viewport.current?.invert()}
        />
        <ToolbarButton label={t('dicom.zoomIn')} icon={ICONS.zoomIn} onClick={() => viewport.current?.zoom(0.25)} />
        <ToolbarButton label={t('dicom.zoomOut')} icon={ICONS.zoomOut} onClick={() => viewport.current?.zoom(-0.25)} />
        {multi && (
          <ToolbarButton
            label={s?.playing ? t('dicom.pause') : t('dicom.play')}
            icon={s?.playing ? ICONS.pause : ICONS.play}
            active={s?.playing}
            onClick={() => viewport.current?.togglePlay()}
          />
        )}
        <ToolbarButton label={t('dicom.reset')} icon={ICONS.reset} onClick={() => viewport.current?.reset()} />
        <ToolbarButton
          label={overlay ? t('dicom.hideOverlay') : t('dicom.showOverlay')}
          icon={ICONS.overlay}
          active={overlay}
          onClick={() => setOverlay((o) => !o)}
        />
        <ToolbarButton label={t('dicom.fullscreen')} icon={ICONS.fullscreen} onClick={fullscreen} />
        <Popover position="bottom-end" withArrow>
          <Popover.Target>
            <ActionIcon variant="default" size="lg" aria-label={t('dicom.shortcuts')}>
              <Icon d={ICONS.keyboard} />
            </ActionIcon>
          </Popover.Target>
          <Popover.Dropdown>
            <Text size="sm" fw={700} mb={4}>
              {t('dicom.shortcuts')}
            </Text>
            <Text size="xs" style={{ whiteSpace: 'pre-line' }}>
              {t('dicom.shortcutList')}
            </Text>
          </Popover.Dropdown>
        </Popover>
      </Group>

      {failed && (
        <Alert color="red" variant="light">
          {t('dicom.failed')}
        </Alert>
      )}

      <Box
        pos="relative"
        bg="black"
        style={{ height: 'min(72dvh, calc(100dvh - 260px))', minHeight: 280, borderRadius: 6, overflow: 'hidden' }}
      >
        <div
          ref={frameRef}
          id={divId}
          data-testid="viewport"
          data-slice={s ? s.index + 1 : 0}
          data-count={s?.count ?? 0}
          data-window={s && s.width !== null ? `${s.width}/${s.center}` : ''}
          data-zoom={s?.zoom ?? 1}
          data-centre={s?.centre?.join(',') ?? ''}
          data-loaded={s?.loaded ? 'true' : 'false'}
          data-rendered={s?.rendered ? 'true' : 'false'}
          role="img"
          aria-label={t('dicom.imageLabel', { exam: examTitle ?? '' })}
          style={{ width: '100%', height: '100%', touchAction: 'none' }}
        />
        {s && !s.loaded && !failed && (
          <Stack
            pos="absolute"
            top="45%"
            left="10%"
            right="10%"
            gap={4}
            align="center"
            style={{ pointerEvents: 'none' }}
          >
            <Loader color="gray" size="sm" />
            <Progress
              value={s.progress}
              w="100%"
              color="gray"
              aria-label={t('dicom.loading', { percent: Math.round(s.progress) })}
            />
            <Text c="gray.3" size="xs">
              {t('dicom.loading', { percent: Math.round(s.progress) })}
            </Text>
          </Stack>
        )}
        {overlay && s?.loaded && (
          <>
            <Box
              pos="absolute"
              top={6}
              left={8}
              c="gray.2"
              fz="xs"
              style={{ pointerEvents: 'none', textShadow: '0 0 3px #000' }}
              data-testid="overlay"
            >
              <div>{study?.patientName}</div>
              <div>
                {study?.studyDate
                  ? formatCalendarDate(
                      `${study.studyDate.slice(0, 4)}-${study.studyDate.slice(4, 6)}-${study.studyDate.slice(6, 8)}`,
                    )
                  : ''}
              </div>
              <div>{study?.description}</div>
            </Box>
            <Box
              pos="absolute"
              bottom={6}
              left={8}
              c="gray.2"
              fz="xs"
              style={{ pointerEvents: 'none', textShadow: '0 0 3px #000' }}
            >
              <div data-testid="slice-label">{t('dicom.slice', { n: s.index + 1, total: s.count })}</div>
              {s.width !== null && <div>{t('dicom.window', { width: s.width, center: s.center })}</div>}
              <div>{t('dicom.zoom', { zoom: s.zoom.toFixed(2) })}</div>
            </Box>
          </>
        )}
      </Box>

      {multi && (
        <Slider
          min={1}
          max={s?.count ?? 1}
          value={(s?.index ?? 0) + 1}
          onChange={(value) => viewport.current?.scrollTo(value - 1)}
          label={(value) => t('dicom.slice', { n: value, total: s?.count ?? 1 })}
          aria-label={t('dicom.sliceSlider')}
          thumbLabel={t('dicom.sliceSlider')}
          size="sm"
        />
      )}

      <ScrollArea type="auto" offsetScrollbars>
        <Group gap="xs" wrap="nowrap" role="list" aria-label={t('dicom.series')}>
          {series.isPending && <Loader size="sm" />}
          {series.data?.map((item) => (
            <UnstyledButton
              key={item.uid}
              role="listitem"
              onClick={() => setSeriesUid(item.uid)}
              aria-current={item.uid === activeSeries}
              aria-label={t('dicom.seriesLabel', {
                n: item.number ?? '',
                description: item.description ?? item.modality ?? '',
                count: item.instances,
              })}
              style={{
                border: `2px solid ${item.uid === activeSeries ? 'var(--mantine-color-blue-6)' : 'transparent'}`,
                borderRadius: 6,
                padding: 2,
              }}
            >
              <AuthorizedImage path={`${DICOMWEB}/studies/${studyUid}/series/${item.uid}/thumbnail`} alt="" size={64} />
              <Text size="xs" ta="center" maw={68} truncate>
                {item.modality} {item.instances}
              </Text>
            </UnstyledButton>
          ))}
        </Group>
      </ScrollArea>
    </Stack>
  );
}
