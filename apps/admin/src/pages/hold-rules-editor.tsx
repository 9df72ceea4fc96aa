import {
  ActionIcon,
  Button,
  Fieldset,
  Group,
  NativeSelect,
  NumberInput,
  Stack,
  Text,
  Textarea,
  TextInput,
} from '@mantine/core';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import {
  HOLD_HOURS_MAX,
  HOLD_MESSAGE_MAX,
  type HoldRule,
  type HoldRuleKind,
  type HoldRules,
} from '@portal/shared/schemas/institution';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { api } from '../lib/api';
import { notifyError, notifySuccess } from '../lib/notify';

interface Row {
  key: number;
  examTypeCode: string;
  rule: HoldRuleKind;
  hours: number | string;
  message: string;
}

let nextKey = 0;
const rowOf = (r?: HoldRule): Row => ({
  key: nextKey++,
  examTypeCode: r?.examTypeCode ?? '',
  rule: r?.rule ?? 'PHYSICIAN',
  hours: r?.hours ?? '',
  message: r?.message ?? '',
});

/** What is wrong with a row, as translation keys by field (nothing when it can be saved). */
function problemsOf(row: Row, rows: Row[]): { type?: string; hours?: string } {
  const code = row.examTypeCode.trim().toUpperCase();
  const out: { type?: string; hours?: string } = {};
  if (!code) out.type = 'holds.typeRequired';
  else if (rows.some((o) => o.key !== row.key && o.examTypeCode.trim().toUpperCase() === code))
    out.type = 'holds.typeRepeated';
  const hours = Number(row.hours);
  if (row.rule === 'HOURS' && (row.hours === '' || !Number.isInteger(hours) || hours < 1 || hours > HOLD_HOURS_MAX)) {
    out.hours = 'holds.hoursRange';
  }
  return out;
}

/**
 * Release holds for sensitive results (issue 22): the institution's rules per exam type, saved
 * on their own (PUT …/hold-rules) beside the institution's form.
 */
export function HoldRulesEditor({ institutionId }: { institutionId: string }) {
  const url = `/api/administrationbe/institution/${institutionId}/hold-rules`;
  const { data } = useQuery({ queryKey: ['hold-rules', institutionId], queryFn: () => api<HoldRules>(url) });
  return data ? <HoldRulesForm institutionId={institutionId} url={url} saved={data.rules} /> : null;
}

function HoldRulesForm({ institutionId, url, saved }: { institutionId: string; url: string; saved: HoldRule[] }) {
  const { t } = useTranslation();
  const client = useQueryClient();
  const [rows, setRows] = useState<Row[]>(() => saved.map(rowOf));
  const [tried, setTried] = useState(false);
  const save = useMutation({
    mutationFn: () =>
      api<HoldRules>(url, {
        method: 'PUT',
        body: {
          rules: rows.map((r) => ({
            examTypeCode: r.examTypeCode.trim(),
            rule: r.rule,
            hours: r.rule === 'HOURS' ? Number(r.hours) : null,
            message: r.message.trim() || null,
          })),
        },
      }),
    onSuccess: (answer) => {
      client.setQueryData(['hold-rules', institutionId], answer);
      setTried(false);
      notifySuccess(t('common.saved'));
    },
    onError: notifyError,
  });
  const change = (key: number, patch: Partial<Row>) =>
    setRows((all) => all.map((r) => (r.key === key ? { ...r, ...patch } : r)));
  const valid = rows.every((r) => Object.keys(problemsOf(r, rows)).length === 0);

  return (
    <Fieldset legend={t('holds.title')} data-testid="hold-rules">
      <Stack gap="sm">
        <Text size="sm" c="dimmed">
          {t('holds.help')}
        </Text>
        {rows.length === 0 && <Text size="sm">{t('holds.none')}</Text>}
        {rows.map((row, index) => {
          const problems = tried ? problemsOf(row, rows) : {};
          return (
            <Stack
              key={row.key}
              gap="xs"
              p="sm"
              style={{ border: '1px solid var(--mantine-color-gray-4)', borderRadius: 8 }}
              data-testid="hold-rule"
            >
              <Group align="flex-start" wrap="wrap" gap="sm">
                <TextInput
                  label={t('holds.examType')}
                  description={t('holds.examTypeHelp')}
                  value={row.examTypeCode}
                  maxLength={100}
                  onChange={(e) => change(row.key, { examTypeCode: e.currentTarget.value })}
                  error={problems.type ? t(problems.type) : undefined}
                  required
                  miw={200}
                />
                <NativeSelect
                  label={t('holds.rule')}
                  value={row.rule}
                  onChange={(e) => change(row.key, { rule: e.currentTarget.value as HoldRuleKind })}
                  data={(['HOURS', 'PHYSICIAN', 'IN_PERSON'] as const).map((v) => ({
                    value: v,
                    label: t(`holds.rules.${v}`),
                  }))}
                  miw={240}
                />
                {row.rule === 'HOURS' && (
                  <NumberInput
                    label={t('holds.hours')}
                    value={row.hours}
                    min={1}
                    max={HOLD_HOURS_MAX}
                    allowDecimal={false}
                    onChange={(v) => change(row.key, { hours: v })}
                    error={problems.hours ? t(problems.hours, { max: HOLD_HOURS_MAX }) : undefined}
                    required
                    w={140}
                  />
                )}
                <ActionIcon
                  variant="subtle"
                  color="red.9"
                  mt={24}
                  aria-label={t('holds.remove', { n: index + 1 })}
                  onClick={() => setRows((all) => all.filter((r) => r.key !== row.key))}
                >
                  ×
                </ActionIcon>
              </Group>
              <Textarea
                label={t('holds.message')}
                description={t('holds.messageHelp')}
                value={row.message}
                maxLength={HOLD_MESSAGE_MAX}
                autosize
                minRows={1}
                onChange={(e) => change(row.key, { message: e.currentTarget.value })}
              />
            </Stack>
          );
        })}
        <Group gap="sm">
          <Button variant="default" onClick={() => setRows((all) => [...all, rowOf()])} data-testid="add-hold-rule">
            {t('holds.add')}
          </Button>
          <Button
            loading={save.isPending}
            onClick={() => {
              setTried(true);
              if (valid) save.mutate();
            }}
            data-testid="save-hold-rules"
          >
            {t('holds.save')}
          </Button>
        </Group>
      </Stack>
    </Fieldset>
  );
}
