"""Seed 004's trainer: MultiWorkerMirroredStrategy transfer learning on cassava.

As in the lab, with one change: the model goes to AIP_MODEL_DIR (set by Vertex AI from the
job's baseOutputDirectory) instead of a bucket written into the code.
"""

import os

import tensorflow as tf
import tensorflow_datasets as tfds

PER_REPLICA_BATCH_SIZE = 64
EPOCHS = 2
MODEL_DIR = os.environ.get("AIP_MODEL_DIR", "gs://{your-gcs-bucket}/mwms")


def preprocess_data(image, label):
    """Resizes and scales images."""
    image = tf.image.resize(image, (300, 300))
    return tf.cast(image, tf.float32) / 255.0, label


def create_dataset(batch_size):
    """Loads Cassava dataset and preprocesses data."""
    data, info = tfds.load(name="cassava", as_supervised=True, with_info=True)
    number_of_classes = info.features["label"].num_classes
    train_data = data["train"].map(preprocess_data, num_parallel_calls=tf.data.experimental.AUTOTUNE)
    train_data = train_data.shuffle(1000).batch(batch_size).prefetch(tf.data.experimental.AUTOTUNE)
    options = tf.data.Options()
    options.experimental_distribute.auto_shard_policy = tf.data.experimental.AutoShardPolicy.DATA
    return train_data.with_options(options), number_of_classes


def create_model(number_of_classes):
    """Creates and compiles pretrained ResNet50 model."""
    base_model = tf.keras.applications.ResNet50(weights="imagenet", include_top=False)
    x = tf.keras.layers.GlobalAveragePooling2D()(base_model.output)
    x = tf.keras.layers.Dense(1016, activation="relu")(x)
    predictions = tf.keras.layers.Dense(number_of_classes, activation="softmax")(x)
    model = tf.keras.Model(inputs=base_model.input, outputs=predictions)
    model.compile(loss="sparse_categorical_crossentropy", optimizer=tf.keras.optimizers.Adam(0.0001),
                  metrics=["accuracy"])
    return model


def write_filepath(filepath, task_type, task_id):
    """The chief saves to the model dir; the other workers to their own temporary dirs."""
    dirpath, base = os.path.dirname(filepath), os.path.basename(filepath)
    if task_type != "chief":
        dirpath = os.path.join(dirpath, "workertemp_" + str(task_id))
        tf.io.gfile.makedirs(dirpath)
    return os.path.join(dirpath, base)


def main():
    strategy = tf.distribute.MultiWorkerMirroredStrategy()
    global_batch_size = PER_REPLICA_BATCH_SIZE * strategy.num_replicas_in_sync
    train_data, number_of_classes = create_dataset(global_batch_size)
    with strategy.scope():
        model = create_model(number_of_classes)
    model.fit(train_data, epochs=EPOCHS)
    task_type, task_id = strategy.cluster_resolver.task_type, strategy.cluster_resolver.task_id
    model.save(write_filepath(MODEL_DIR, task_type, task_id))


if __name__ == "__main__":
    main()
