import { Group, Text } from '@mantine/core';
import { useTranslation } from 'react-i18next';

/** The portal's mark and name; in the header a phone shows the mark alone (global.css). */
export function Logo() {
  const { t } = useTranslation();
  return (
    <Group gap={8} wrap="nowrap">
      <svg viewBox="0 0 64 64" width="32" height="32" aria-hidden="true" focusable="false">
        <rect width="64" height="64" rx="14" fill="#17549a" />
        <path d="M27 14h10v13h13v10H37v13H27V37H14V27h13z" fill="#fff" />
      </svg>
      <Text className="app-header-wide" fw={700} c="medical.9" size="lg" lh={1.1}>
        {t('app.name')}
      </Text>
    </Group>
  );
}

/** The partner's mark in the footer (spec 1). */
export function PartnerLogo() {
  const { t } = useTranslation();
  return (
    <svg viewBox="0 0 160 36" width="140" height="32" role="img" aria-label={t('footer.partnerLogo')}>
      <rect x="1" y="1" width="34" height="34" rx="8" fill="none" stroke="#0a3766" strokeWidth="2" />
      <path d="M9 24l6-12 5 8 3-4 4 8" stroke="#0a3766" strokeWidth="2.5" fill="none" strokeLinejoin="round" />
      <text x="44" y="24" fontFamily="system-ui, sans-serif" fontSize="15" fontWeight="700" fill="#0a3766">
        Rede Parceira
      </text>
    </svg>
  );
}
