;; The inner loop of descriptor matching (features.ts), in WebAssembly SIMD: a 256-bit ORB descriptor
;; is two 128-bit lanes, so a Hamming distance is two XORs and two byte popcounts. hamming.ts loads it;
;; hamming.wasm is this file assembled (`npm run wasm`; tests/unit/drone/drone-hamming.test.ts checks both agree).
;;
;; Memory, laid out by hamming.ts: [0, 12) the running best distance, second best and best member
;; (i32 each), then the query descriptors, the candidates' descriptors (32 bytes each) and the
;; candidates' ground points (two f64 each).
(module
  (memory (export "memory") 1)

  ;; Candidates [$first, $end) (descriptors from $train, ground points from $ground) against the
  ;; query descriptor at $query, updating the running best, second best and best member. Unless
  ;; $whole, a candidate farther than sqrt($r2) from ($e, $n) is passed over.
  (func (export "nearestTwo")
    (param $query i32) (param $train i32) (param $ground i32) (param $first i32) (param $end i32)
    (param $e f64) (param $n f64) (param $r2 f64) (param $whole i32)
    (local $m i32) (local $d i32) (local $best i32) (local $second i32) (local $idx i32) (local $de f64) (local $dn f64)
    (local $q0 v128) (local $q1 v128) (local $t i32) (local $s v128)
    (local.set $q0 (v128.load (local.get $query)))
    (local.set $q1 (v128.load offset=16 (local.get $query)))
    (local.set $best (i32.load (i32.const 0)))
    (local.set $second (i32.load (i32.const 4)))
    (local.set $idx (i32.load (i32.const 8)))
    (local.set $m (local.get $first))
    (block $done
      (loop $next
        (br_if $done (i32.ge_s (local.get $m) (local.get $end)))
        (block $skip
          (if (i32.eqz (local.get $whole))
            (then
              (local.set $de (f64.sub (f64.load (i32.add (local.get $ground) (i32.shl (local.get $m) (i32.const 4)))) (local.get $e)))
              (local.set $dn (f64.sub (f64.load offset=8 (i32.add (local.get $ground) (i32.shl (local.get $m) (i32.const 4)))) (local.get $n)))
              (br_if $skip (f64.gt (f64.add (f64.mul (local.get $de) (local.get $de)) (f64.mul (local.get $dn) (local.get $dn))) (local.get $r2)))))
          ;; The Hamming distance: per byte at most 16 bits set over the two lanes, widened pairwise to
          ;; four 32-bit sums, then folded.
          (local.set $t (i32.add (local.get $train) (i32.shl (local.get $m) (i32.const 5))))
          (local.set $s
            (i32x4.extadd_pairwise_i16x8_u
              (i16x8.extadd_pairwise_i8x16_u
                (i8x16.add
                  (i8x16.popcnt (v128.xor (local.get $q0) (v128.load (local.get $t))))
                  (i8x16.popcnt (v128.xor (local.get $q1) (v128.load offset=16 (local.get $t))))))))
          (local.set $s (i32x4.add (local.get $s) (i8x16.shuffle 8 9 10 11 12 13 14 15 0 1 2 3 4 5 6 7 (local.get $s) (local.get $s))))
          (local.set $d (i32.add (i32x4.extract_lane 0 (local.get $s)) (i32x4.extract_lane 1 (local.get $s))))
          ;; The same order of tests as a plain loop: ties for the best become the second.
          (if (i32.lt_s (local.get $d) (local.get $best))
            (then
              (local.set $second (local.get $best))
              (local.set $best (local.get $d))
              (local.set $idx (local.get $m)))
            (else
              (if (i32.lt_s (local.get $d) (local.get $second))
                (then (local.set $second (local.get $d)))))))
        (local.set $m (i32.add (local.get $m) (i32.const 1)))
        (br $next)))
    (i32.store (i32.const 0) (local.get $best))
    (i32.store (i32.const 4) (local.get $second))
    (i32.store (i32.const 8) (local.get $idx)))
)
