import { Stack, Text, Title, type TitleOrder } from '@mantine/core';

/** A term as the server stores it: paragraphs split by blank lines, the first one its title. */
export function TermText({ text, titleOrder = 2 }: { text: string; titleOrder?: TitleOrder }) {
  const [title, ...paragraphs] = text
    .split(/\n{2,}/)
    .map((p) => p.trim())
    .filter(Boolean);
  return (
    <Stack gap="sm">
      {title && (
        <Title order={titleOrder} size="h4">
          {title}
        </Title>
      )}
      {paragraphs.map((paragraph, index) => (
        <Text key={index} size="sm">
          {paragraph}
        </Text>
      ))}
    </Stack>
  );
}
