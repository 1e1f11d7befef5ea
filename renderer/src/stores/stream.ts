import { create } from 'zustand';
import { events, type StreamStatus } from '../api/events.ts';

/** The event stream's connection state, for the "live" indicator. */
export const useStreamStatus = create<{ status: StreamStatus }>()(() => ({
  status: events.status,
}));

events.onStatus((status) => useStreamStatus.setState({ status }));
