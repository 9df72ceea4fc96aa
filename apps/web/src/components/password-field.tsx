import { PasswordInput, type PasswordInputProps } from '@mantine/core';
import { forwardRef } from 'react';
import { useTranslation } from 'react-i18next';

/**
 * Mantine leaves the show/hide toggle out of the tab order; keyboard users need it as much as
 * anyone, so it takes focus here and says what it does.
 */
export const PasswordField = forwardRef<HTMLInputElement, PasswordInputProps>(function PasswordField(props, ref) {
  const { t } = useTranslation('common');
  return (
    <PasswordInput
      ref={ref}
      visibilityToggleButtonProps={{ 'aria-label': t('actions.showPassword'), tabIndex: 0 }}
      {...props}
    />
  );
});
