import { PlaceholderPage } from '../../../app/pages/placeholder-page';

export default function Page() {
  return <PlaceholderPage path="/politica-de-privacidade" />;
}
