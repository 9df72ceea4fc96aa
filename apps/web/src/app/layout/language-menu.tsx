import { Button, Menu } from '@mantine/core';
import { LANGUAGES, type Language } from '@portal/shared/limits';
import { useTranslation } from 'react-i18next';
import { Flag } from '../../components/flags';
import { ChevronDownIcon } from '../../components/icons';
import { changeLanguage, currentLanguage } from '../../lib/i18n';

export function LanguageMenu() {
  const { t } = useTranslation();
  const active = currentLanguage();
  return (
    <Menu position="bottom-end" withinPortal>
      <Menu.Target>
        <Button
          variant="subtle"
          color="dark"
          px={8}
          leftSection={<Flag language={active} />}
          rightSection={<ChevronDownIcon size={16} />}
          aria-label={t('header.languageMenu', { code: active.toUpperCase(), language: t(`languages.${active}`) })}
          data-testid="language-menu"
        >
          {active.toUpperCase()}
        </Button>
      </Menu.Target>
      <Menu.Dropdown>
        {LANGUAGES.map((language: Language) => (
          <Menu.Item
            key={language}
            leftSection={<Flag language={language} />}
            onClick={() => void changeLanguage(language)}
            aria-current={language === active ? 'true' : undefined}
            lang={language === 'pt-br' ? 'pt-BR' : language}
          >
            {t(`languages.${language}`)}
          </Menu.Item>
        ))}
      </Menu.Dropdown>
    </Menu>
  );
}
