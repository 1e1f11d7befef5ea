import type { Location } from '../../../../shared/schemas/media.ts';
import { ChatText, type ChatHighlight } from '../chat-text.tsx';
import { MediaCard } from './media-card.tsx';
import { PinIcon } from './media-icons.tsx';
import './media.css';

/** Coordinates as a map reads them: six decimals (about 10 cm), trailing zeros dropped. */
const coordinate = (value: number): string => String(Number(value.toFixed(6)));

/** OpenStreetMap centred on the point, with a marker: nothing of it loads inside the desk. */
export const mapUrl = ({ latitude, longitude }: Location): string => {
  const lat = coordinate(latitude);
  const lon = coordinate(longitude);
  return `https://www.openstreetmap.org/?mlat=${lat}&mlon=${lon}#map=16/${lat}/${lon}`;
};

/**
 * A shared location: its name and address (the message's text, which search finds), the
 * coordinates, and a link that opens them in a map outside the desk (no map tiles load here).
 */
export function LocationCard({
  location,
  text,
  highlight,
}: {
  location: Location;
  /** "name, address" as the core wrote it; empty for a bare pin. */
  text: string;
  highlight?: ChatHighlight | null | undefined;
}) {
  const coordinates = `${coordinate(location.latitude)}, ${coordinate(location.longitude)}`;
  return (
    <MediaCard icon={<PinIcon />} className="location-card" testId="location-card">
      {text.trim() ? (
        <div className="wa-body media-card-title" data-testid="message-text">
          <ChatText text={text} highlight={highlight} />
        </div>
      ) : (
        <div className="media-card-title">Location</div>
      )}
      <div className="media-card-sub mono" data-testid="location-coordinates">
        {coordinates}
      </div>
      <a
        className="media-card-link"
        href={mapUrl(location)}
        target="_blank"
        rel="noopener noreferrer"
        data-testid="location-open-map"
      >
        Open in maps
      </a>
    </MediaCard>
  );
}
